import Foundation

/// Asset icons at their masterdata or CoinGecko URLs: the image's bytes (SVG or PNG).
public struct IconClient: Sendable {
    /// The bytes of the image at `url`.
    public var icon: @Sendable (_ url: URL) async throws -> Data

    /// A client from its endpoint.
    public init(icon: @escaping @Sendable (_ url: URL) async throws -> Data) {
        self.icon = icon
    }
}

extension IconClient {
    /// No recorded icons: every fetch is `notInFixtures`, so whoever asks draws its own (the presenter: a monogram).
    public static let test = Self { url in throw FeedError.notInFixtures("icon \(url.absoluteString)") }

    /// Without the network, as ``test``.
    public static let mock = test
}
