import Foundation
import PresenterViews

/// An image the presenter answers under `/icons/`.
struct Icon: Sendable, Equatable {
    /// The image's bytes.
    var data: Data
    /// Its media type: `image/svg+xml` or `image/png`.
    var contentType: String
    /// Whether it is a generated ``Monogram`` standing in for an icon that may yet be known.
    var isMonogram = false
}

/// Where the presenter gets an asset's icon from: one fetch of its remote URL (the masterdata's or CoinGecko's, over
/// https only; a plugin's coin `image` is never fetched).
/// `none` fetches nothing, so every icon is a monogram: what mock and test stacks use, with no network.
public struct IconSource: Sendable {
    /// The bytes at a URL; throws when they cannot be had.
    public var fetch: @Sendable (_ url: URL) async throws -> Data

    /// A source from its closure.
    public init(fetch: @escaping @Sendable (_ url: URL) async throws -> Data) {
        self.fetch = fetch
    }

    /// Fetches nothing: every icon is a generated monogram.
    public static let none = Self { url in throw IconStoreError.notFetched(url.absoluteString) }
}

/// Why an icon was not fetched.
public enum IconStoreError: Error, CustomStringConvertible, Equatable {
    /// The source fetches nothing.
    case notFetched(String)
    /// What came back is neither SVG nor PNG.
    case notAnImage(String)

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .notFetched(let url): "icons are not fetched here (\(url))"
        case .notAnImage(let url): "\(url) did not answer an SVG or PNG image"
        }
    }
}

/// The icons the presenter serves: each fetched once from its remote URL and kept on disk (at most
/// `maxBytes` in all, oldest first out), and a generated ``Monogram`` where none is known or can be had.
actor IconStore {
    private let source: IconSource
    private let directory: URL?
    private let maxBytes: Int
    private var memory: [String: Icon] = [:]
    /// Remote URLs whose fetch failed: not asked again while the presenter runs.
    private var failed: Set<String> = []

    /// A store fetching through `source`, caching in `directory` (nil: in memory only) up to `maxBytes`.
    init(source: IconSource = .none, directory: URL? = nil, maxBytes: Int = 4 << 20) {
        self.source = source
        self.directory = directory
        self.maxBytes = maxBytes
    }

    /// `symbol`'s icon for `variant`, fetched from `remote` (once, and only an `https` URL) when given, else a
    /// monogram. Without a remote (a coin only a plugin describes), or when it cannot be had, the monogram is not
    /// kept: a later call with a remote that works gets the real icon.
    func icon(_ symbol: String, variant: IconPath.Variant, remote: String?) async -> Icon {
        let key = "\(symbol)-\(variant.rawValue)"
        if let icon = memory[key] { return icon }
        if let icon = readCached(key) {
            memory[key] = icon
            return icon
        }
        if let remote, !remote.isEmpty, !failed.contains(remote) {
            if let url = URL(string: remote), url.scheme == "https", url.host?.isEmpty == false,
               let data = try? await source.fetch(url), let contentType = Self.contentType(of: data) {
                let icon = Icon(data: data, contentType: contentType)
                memory[key] = icon
                writeCached(key, icon)
                return icon
            }
            failed.insert(remote)
        }
        return Icon(data: Data(Monogram.svg(symbol, variant: variant).utf8), contentType: "image/svg+xml", isMonogram: true)
    }

    /// `image/svg+xml` or `image/png` by the bytes themselves; nil for anything else.
    static func contentType(of data: Data) -> String? {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        let head = String(decoding: data.prefix(512), as: UTF8.self)
        return head.contains("<svg") ? "image/svg+xml" : nil
    }

    private func file(_ key: String, _ contentType: String) -> URL? {
        directory?.appendingPathComponent(key + (contentType == "image/png" ? ".png" : ".svg"))
    }

    private func readCached(_ key: String) -> Icon? {
        for type in ["image/svg+xml", "image/png"] {
            if let url = file(key, type), let data = try? Data(contentsOf: url) { return Icon(data: data, contentType: type) }
        }
        return nil
    }

    /// Writes the icon, then removes the oldest files while the directory holds more than `maxBytes`.
    private func writeCached(_ key: String, _ icon: Icon) {
        guard let directory, let url = file(key, icon.contentType), icon.data.count <= maxBytes else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard (try? icon.data.write(to: url, options: .atomic)) != nil else { return }
        let keys: Set<URLResourceKey> = [.fileSizeKey, .contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: Array(keys)) else { return }
        let entries = files.compactMap { file -> (url: URL, size: Int, date: Date)? in
            guard let values = try? file.resourceValues(forKeys: keys) else { return nil }
            return (file, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }.sorted { $0.date < $1.date }
        var total = entries.reduce(0) { $0 + $1.size }
        for entry in entries where total > maxBytes && entry.url != url {
            try? FileManager.default.removeItem(at: entry.url)
            total -= entry.size
        }
    }
}
