/// Every asset and every wallet of one user (Bitpanda masterdata).
public struct Masterdata: Sendable, Hashable, Codable {
    /// Cryptocoins, then commodities, then fiats, each in source order.
    public var assets: [Asset]
    /// Crypto wallets, then commodity wallets, then fiat wallets, each in source order; deleted ones included.
    public var wallets: [Wallet]

    /// A user's masterdata.
    public init(assets: [Asset], wallets: [Wallet]) {
        self.assets = assets
        self.wallets = wallets
    }

    /// The asset a wallet holds, matched by kind and id.
    public func asset(for wallet: Wallet) -> Asset? {
        assets.first { $0.kind == wallet.kind && $0.id == wallet.assetId }
    }
}
