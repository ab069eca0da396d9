import Foundation
import Money
import WireJSON

// What the direct codecs of this module share: an optional money member read in one call, arrays of strings, a date
// without a cache.

extension WireCursor {
    /// Reads the optional money member `key` into `value` if it is next, as ``WireCursor/string(_:_:)`` does a string.
    @inlinable @inline(__always)
    mutating func money(_ key: StaticString, _ value: inout ExactDecimal?) -> Bool {
        guard peek(key) else { return true }
        value = text(ExactDecimal.self)
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
