import Money

/// A user's holding of one asset (Bitpanda masterdata).
public struct Wallet: Sendable, Hashable, Codable {
    /// The wallet's id (a UUID string).
    public var id: String
    /// The kind of asset it holds.
    public var kind: AssetKind
    /// Its name, e.g. "BTC Wallet".
    public var name: String
    /// The id of the asset it holds, within `kind`.
    public var assetId: String
    /// The symbol of the asset it holds, e.g. "BTC".
    public var assetSymbol: String
    /// How much of the asset it holds.
    public var balance: ExactDecimal
    /// Whether it is the default wallet for its asset (fiat wallets never are).
    public var isDefault: Bool
    /// Whether the user deleted it (fiat wallets never are).
    public var deleted: Bool
    /// Transactions not yet settled.
    public var pendingTransactions: Int

    /// A wallet.
    public init(
        id: String, kind: AssetKind, name: String, assetId: String, assetSymbol: String,
        balance: ExactDecimal, isDefault: Bool, deleted: Bool, pendingTransactions: Int
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.assetId = assetId
        self.assetSymbol = assetSymbol
        self.balance = balance
        self.isDefault = isDefault
        self.deleted = deleted
        self.pendingTransactions = pendingTransactions
    }
}
