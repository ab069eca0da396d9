import Foundation
import Market
import TickwireContract

/// How the portfolio keeps rates-fetcher's documents (masterdata, transactions) for offline use: the
/// update as JSON, tagged with its kind.
enum StoredDocument {
    private struct Tagged<Value: Codable>: Codable {
        var kind: String
        var value: Value
    }

    private struct Tag: Decodable {
        var kind: String
    }

    /// `update` as stored; only masterdata and transactions are kept.
    static func encode(_ update: FetcherUpdate) throws -> Data {
        switch update {
        case .assets(let assets): return try encoder.encode(Tagged(kind: update.kind.rawValue, value: assets))
        case .wallets(let wallets): return try encoder.encode(Tagged(kind: update.kind.rawValue, value: wallets))
        case .transactions(let all): return try encoder.encode(Tagged(kind: update.kind.rawValue, value: all))
        default: throw EncodingError.invalidValue(update, .init(codingPath: [], debugDescription: "\(update.kind) is not kept"))
        }
    }

    /// The update stored as `data`.
    static func decode(_ data: Data) throws -> FetcherUpdate {
        switch try decoder.decode(Tag.self, from: data).kind {
        case FetcherUpdate.Kind.assets.rawValue: return .assets(try decoder.decode(Tagged<[Asset]>.self, from: data).value)
        case FetcherUpdate.Kind.wallets.rawValue: return .wallets(try decoder.decode(Tagged<[Wallet]>.self, from: data).value)
        case FetcherUpdate.Kind.transactions.rawValue: return .transactions(try decoder.decode(Tagged<[GNBTransaction]>.self, from: data).value)
        case let kind: throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no stored document of kind \(kind)"))
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
