import Foundation
import Money
import Testing
@testable import WireJSON
import WireJSONTesting

/// A value with a hand-written wire codec, as the streamed messages have: required, optional, nested
/// fast-path and plain `Codable` members.
struct Tick: Codable, Equatable, WireCodable {
    struct Venue: Codable, Equatable, WireCodable {
        var name: String
        var open: Bool?

        func encode(wire object: WireObjectWriter) throws {
            try object.encode(name, forKey: "name")
            try object.encodeIfPresent(open, forKey: "open")
        }

        init(name: String, open: Bool?) {
            self.name = name
            self.open = open
        }

        init(wire object: WireObjectReader) throws {
            name = try object.decode(forKey: "name")
            open = try object.decodeIfPresent(forKey: "open")
        }
    }

    var symbol: String
    var seq: UInt64
    var price: ExactDecimal
    var size: Int?
    var at: Date?
    var venue: Venue
    var venues: [Venue]
    var tags: [String: Double]
    var previous: Venue?

    init(symbol: String, seq: UInt64, price: ExactDecimal, size: Int?, at: Date?, venue: Venue, venues: [Venue], tags: [String: Double], previous: Venue?) {
        self.symbol = symbol
        self.seq = seq
        self.price = price
        self.size = size
        self.at = at
        self.venue = venue
        self.venues = venues
        self.tags = tags
        self.previous = previous
    }

    func encode(wire object: WireObjectWriter) throws {
        try object.encode(symbol, forKey: "symbol")
        try object.encode(seq, forKey: "seq")
        try object.encode(price, forKey: "price")
        try object.encodeIfPresent(size, forKey: "size")
        try object.encodeIfPresent(at, forKey: "at")
        try object.encode(venue, forKey: "venue")
        try object.encode(venues, forKey: "venues")
        try object.encode(tags, forKey: "tags")
        try object.encodeIfPresent(previous, forKey: "previous")
    }

    init(wire object: WireObjectReader) throws {
        symbol = try object.decode(forKey: "symbol")
        seq = try object.decode(forKey: "seq")
        price = try object.decode(forKey: "price")
        size = try object.decodeIfPresent(forKey: "size")
        at = try object.decodeIfPresent(forKey: "at")
        venue = try object.decode(forKey: "venue")
        venues = try object.decode(forKey: "venues")
        tags = try object.decode(forKey: "tags")
        previous = try object.decodeIfPresent(forKey: "previous")
    }

    static func make(_ seed: Int) throws -> Tick {
        Tick(
            symbol: "BTC-\"MXN\" é", seq: UInt64(seed) * 1_000_003, price: try ExactDecimal("1298765.43"),
            size: seed % 2 == 0 ? -seed : nil, at: seed % 3 == 0 ? nil : Date(timeIntervalSince1970: 1_763_900_000.123 + Double(seed)),
            venue: Venue(name: "bitso", open: seed % 2 == 0), venues: (0..<seed % 4).map { Venue(name: "v\($0)", open: nil) },
            tags: ["w": 0.5, "x": Double(seed)], previous: seed % 2 == 0 ? nil : Venue(name: "old", open: false))
    }
}

@Suite("WireCodable: the member-by-member fast path")
struct WireCodableTests {
    let encoder = WireJSONEncoder()
    let decoder = WireJSONDecoder(userInfo: [ExactDecimal.stringsOnly: true])

    /// The fast path writes the bytes `Codable` writes, reads them back, and Foundation reads the same value.
    @Test func sameBytesAndValuesAsCodable() throws {
        for seed in 0..<12 {
            let tick = try Tick.make(seed)
            let fast = try encoder.encode(tick)
            #expect(fast == (try encoder.encode(ViaCodable(tick))))
            #expect(try decoder.decode(Tick.self, from: fast) == tick)
            #expect(try Reference.decoder.decode(Tick.self, from: fast) == tick)
            #expect(try fastPathMatchesCodable(tick, rounds: 300, seed: UInt64(seed)))
            #expect(try encoder.encode([tick, tick]) == (try encoder.encode([ViaCodable(tick), ViaCodable(tick)])))
        }
    }

    /// Missing, null, mistyped and repeated members fail or win as Foundation decides, with the same paths.
    @Test func errorsAndEdgeCasesFollowFoundation() throws {
        let good = String(decoding: try encoder.encode(Tick.make(1)), as: UTF8.self)
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: #""seq":1000003,"#, with: ""), "keyNotFound seq"),
            (good.replacingOccurrences(of: #""seq":1000003"#, with: #""seq":null"#), "valueNotFound seq"),
            (good.replacingOccurrences(of: #""seq":1000003"#, with: #""seq":"1""#), "typeMismatch seq"),
            (good.replacingOccurrences(of: #""name":"bitso","#, with: ""), "keyNotFound venue.name"),
            (good.replacingOccurrences(of: #""venue":{"name":"bitso","open":false}"#, with: #""venue":[]"#), "typeMismatch venue"),
            (good.replacingOccurrences(of: #""name":"old""#, with: #""name":1"#), "typeMismatch previous.name"),
            (good.replacingOccurrences(of: #""price":"1298765.43""#, with: #""price":1298765.43"#), "dataCorrupted price"),
            (good.replacingOccurrences(of: #""previous":{"name":"old","open":false}"#, with: #""previous":null"#), "accepted"),
            (good.replacingOccurrences(of: #"{"symbol""#, with: #"{"extra":[1,{"a":2}],"symbol""#), "accepted"),
        ]
        for (text, expected) in cases {
            #expect(text != good)
            #expect(outcome { _ = try decoder.decode(Tick.self, from: Data(text.utf8)) } == expected, "\(text)")
            #expect(outcome { _ = try Reference.decoder.decode(Tick.self, from: Data(text.utf8)) } == expected, "Foundation: \(text)")
        }
        let repeated = Data(good.replacingOccurrences(of: #"{"symbol""#, with: #"{"seq":7,"symbol""#).utf8)
        #expect(try decoder.decode(Tick.self, from: repeated).seq == (try Reference.decoder.decode(Tick.self, from: repeated)).seq)
    }

    /// An encoding error inside members written by name (a `Codable` member of a `WireEncodable` value)
    /// carries the coding path Foundation's encoder reports.
    @Test func encodingErrorPathsFollowFoundation() throws {
        var tick = try Tick.make(1)
        tick.tags = ["x": .nan]
        func path(_ encode: () throws -> Data) -> [String]? {
            do {
                _ = try encode()
                return nil
            } catch let EncodingError.invalidValue(_, context) {
                return context.codingPath.map(\.stringValue)
            } catch {
                return ["unexpected \(error)"]
            }
        }
        #expect(path { try encoder.encode(tick) } == ["tags", "x"])
        #expect(path { try encoder.encode(tick) } == path { try Reference.encoder.encode(tick) })
    }

    /// `[String]` is read and written without a container, with Foundation's results and error paths.
    @Test func stringArraysFollowFoundation() throws {
        #expect(try encoder.encode(["a\"b", "", "é"]) == (try Reference.encoder.encode(["a\"b", "", "é"])))
        #expect(try decoder.decode([String].self, from: Data(#"["x", "y\u00e9"]"#.utf8)) == ["x", "yé"])
        for (text, expected) in [(#"["a", 1]"#, "typeMismatch Index 1"), (#"["a", null]"#, "valueNotFound Index 1"), (#"{"a": 1}"#, "typeMismatch ")] {
            let ours = outcome { _ = try decoder.decode([String].self, from: Data(text.utf8)) }
            let foundation = outcome { _ = try Reference.decoder.decode([String].self, from: Data(text.utf8)) }
            #expect(ours == expected, "\(text)")
            #expect(foundation == expected, "Foundation: \(text)")
        }
    }

    /// Random edits of a fast-path value: accepted or refused alike by Foundation, with the same values.
    @Test func fuzzAgainstFoundation() async throws {
        let text = try encoder.encode(Tick.make(5))
        let found = await disagreementsWithFoundation(text, as: Tick.self, rounds: 3000, seed: 42) {
            try decoder.decode(Tick.self, from: $0)
        }
        #expect(found.disagreements.isEmpty, "\(found.disagreements.prefix(5).joined(separator: "\n"))")
        #expect(found.accepted > 100, "the edits should leave a fair share valid")
    }

    private func outcome(_ decode: () throws -> Void) -> String {
        do {
            try decode()
            return "accepted"
        } catch let error as DecodingError {
            func path(_ keys: [any CodingKey]) -> String { keys.map(\.stringValue).joined(separator: ".") }
            switch error {
            case .keyNotFound(let key, let context): return "keyNotFound \(path(context.codingPath + [key]))"
            case .typeMismatch(_, let context): return "typeMismatch \(path(context.codingPath))"
            case .valueNotFound(_, let context): return "valueNotFound \(path(context.codingPath))"
            case .dataCorrupted(let context): return "dataCorrupted \(path(context.codingPath))"
            @unknown default: return "\(error)"
            }
        } catch {
            return "\(error)"
        }
    }
}
