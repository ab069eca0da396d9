import Foundation
import Money
import WireJSON

// What the direct codecs of this module share: an optional member read in one call, arrays of strings, a date
// without a cache.

extension WireCursor {
    /// Reads the optional money member `key` into `value` if it is next: true when absent or read, false when its
    /// value is not canonical money (the caller then gives up and the tape decides).
    @inlinable @inline(__always)
    mutating func money(_ key: StaticString, _ value: inout ExactDecimal?) -> Bool {
        guard peek(key) else { return true }
        value = text(ExactDecimal.self)
        return value != nil
    }

    /// ``money(_:_:)`` for an optional `Int` member.
    @inlinable @inline(__always)
    mutating func integer(_ key: StaticString, _ value: inout Int?) -> Bool {
        guard peek(key) else { return true }
        value = int64().flatMap { Int(exactly: $0) }
        return value != nil
    }

    /// ``money(_:_:)`` for an optional date member.
    @inlinable @inline(__always)
    mutating func date(_ key: StaticString, _ value: inout Date?) -> Bool {
        guard peek(key) else { return true }
        value = date()
        return value != nil
    }

    /// ``money(_:_:)`` for an optional string member.
    @inlinable @inline(__always)
    mutating func string(_ key: StaticString, _ value: inout String?) -> Bool {
        guard peek(key) else { return true }
        value = string()
        return value != nil
    }

    /// A JSON array of plain strings (see ``string()``); nil for anything else.
    @inlinable
    mutating func strings() -> [String]? {
        guard expect("[") else { return nil }
        var values: [String] = []
        if peek("]") { return values }
        repeat {
            guard let value = string() else { return nil }
            values.append(value)
        } while peek(",")
        return expect("]") ? values : nil
    }
}

extension WireBuffer {
    /// Appends `values` as a JSON array of strings.
    @inlinable
    mutating func appendStrings(_ values: [String]) {
        append("[")
        for (position, value) in values.enumerated() {
            if position > 0 { append(",") }
            appendString(value)
        }
        append("]")
    }

    /// Appends `date` as ``appendDate(_:cache:)`` does, without a cache kept from one value to the next.
    @inlinable @inline(__always)
    mutating func appendDate(_ date: Date) {
        var cache = WireDateCache()
        appendDate(date, cache: &cache)
    }
}
