import Bus
import ContractWire
import Foundation
import Market
import WireJSON

/// `profile-direct N` (issue 31, 1A): the direct wire API alone, as `profile-bus` is the product's path, for callgrind.
/// Per message: an `Envelope<Quote>` written into one reused `WireBuffer` with one `WireDateCache`, the topic frame
/// checked as bytes against the one known frame, the envelope read back by `decodeDirect`'s fast path, and its `seq`
/// added to a checksum. A message the fast path refuses is decoded by `decodeDirect` (the tape) and counted, and the
/// run fails if any was: the count must be the direct path's.
enum DirectProfile {
    struct Outcome {
        var checksum: UInt64
        var fallbacks: Int
    }

    static func run(count: Int) throws -> Outcome {
        let decoder = WireJSONDecoder()
        // The topic frames as a socket hands them over, and the one known frame each is checked against (separate
        // arrays, so the check compares bytes).
        let frames = BusBench.topics.map { Array($0.rawValue.utf8) }
        let known = BusBench.topics.map { Array($0.rawValue.utf8) }
        var buffer = WireBuffer()
        var dates = WireDateCache()
        var checksum: UInt64 = 0, fallbacks = 0
        for index in 0..<count {
            let envelope = Envelope(type: "quote", seq: UInt64(index + 1), time: Date(), source: "bitso", data: sampleQuotes[index & 63])
            buffer.removeAll()
            envelope.writeWire(to: &buffer, dates: &dates)
            guard frames[index & 7] == known[index & 7] else { throw BenchError("topic frame \(index & 7) differs from its known frame") }
            let decoded = try buffer.withBytes { bytes throws -> Envelope<Quote> in
                // `decodeDirect`'s fast path, inline so that a refusal is seen (and counted) rather than hidden by the tape.
                var cursor = WireCursor(bytes)
                if let direct = Envelope<Quote>.readWire(&cursor), cursor.isAtEnd { return direct }
                fallbacks += 1
                return try decoder.decodeDirect(Envelope<Quote>.self, from: bytes)
            }
            checksum &+= decoded.seq
        }
        return Outcome(checksum: checksum, fallbacks: fallbacks)
    }

    /// The direct bytes of one envelope against the product's encoding (`Wire.encode`), before counting anything.
    static func checkBytes() throws {
        let envelope = Envelope(type: "quote", seq: 1, time: Date(), source: "bitso", data: sampleQuotes[0])
        var buffer = WireBuffer()
        var dates = WireDateCache()
        envelope.writeWire(to: &buffer, dates: &dates)
        let direct = buffer.withBytes { Data($0) }
        let product = try Wire.encode(envelope)
        guard direct == product else {
            throw BenchError("profile-direct: the direct bytes differ from Wire.encode's:\n\(String(decoding: direct, as: UTF8.self))\n\(String(decoding: product, as: UTF8.self))")
        }
    }
}
