import Foundation
import Market
import Money

/// A user's assets and wallets, from a Bitpanda-format masterdata file.
public struct MasterdataClient: Sendable {
    /// Loads the whole file.
    public var load: @Sendable () async throws -> Masterdata

    /// A client from its endpoint.
    public init(load: @escaping @Sendable () async throws -> Masterdata) {
        self.load = load
    }
}

extension MasterdataClient {
    /// The file at `path` on disk, read on every `load`.
    public static func file(path: String) -> Self {
        Self(load: {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw FeedError.transport(url: "file://\(path)", message: error.localizedDescription)
            }
            return try MasterdataWire.masterdata(from: data, origin: "file://\(path)")
        })
    }

    /// The recorded file: 30 cryptocoins, 4 commodities, 7 fiats; 37 crypto, 11 commodity and 4 fiat wallets.
    public static let test = Self(load: { try fixture() })

    /// Alive without the network: each load moves a cryptocoin's average price onto its ``MockMarket`` reference in
    /// EUR at `now` (the recorded one for an asset without a reference, and every commodity's), then walks every
    /// average price a little, deterministically for `seed`.
    public static func mock(seed: UInt64, now: @escaping @Sendable () -> Date = { Date() }) -> Self {
        let walk = PriceWalk(seed: seed)
        return Self(load: {
            var masterdata = try fixture()
            let time = now()
            for index in masterdata.assets.indices {
                let asset = masterdata.assets[index]
                guard let recorded = asset.averagePrice else { continue }
                let reference = asset.kind == .cryptocoin ? try MockMarket.reference(asset: asset.symbol, currency: "EUR", at: time) : nil
                masterdata.assets[index].averagePrice = try PriceWalk.scale(
                    reference ?? recorded, by: walk.step("\(asset.kind.rawValue):\(asset.id)")
                )
            }
            return masterdata
        })
    }

    private static func fixture() throws -> Masterdata {
        let fixture = FeedFixture.masterdata
        return try MasterdataWire.masterdata(from: fixture.data(), origin: fixture.origin)
    }
}
