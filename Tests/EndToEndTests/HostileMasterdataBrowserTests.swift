import Foundation
import Testing

/// Masterdata whose names and symbols hold markup, shown by the dashboard in headless Chromium: nothing
/// of it runs (the payloads would retitle the page and mark its body), and it shows as text.
@Suite("hostile masterdata in a browser (issue 23)", .serialized)
struct HostileMasterdataBrowserTests {
    /// Would set the page's title and mark its body if it ran.
    static let run = "document.title='pwned';document.body.setAttribute('data-pwned','1')"
    static let imageName = "<img src=/xss-marker.png onerror=\"\(run)\">Bitcoin"
    static let scriptName = "\"><script>\(run)</script>Ethereum"
    static let svgSymbol = "\"><svg/onload=\(run)>"
    static let walletName = "<iframe src=javascript:parent.document.title='pwned'></iframe>BTC Wallet"

    /// The recorded masterdata with those names: Bitcoin's and Ethereum's, the last coin's symbol, the first wallet's.
    static func hostileMasterdata(in directory: URL) throws -> URL {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/Feeds/Fixtures/masterdata/Masterdata.json").standardized
        var root = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any])
        var data = try #require(root["data"] as? [String: Any])
        var attributes = try #require(data["attributes"] as? [String: Any])
        var coins = try #require(attributes["cryptocoins"] as? [[String: Any]])
        for index in coins.indices {
            var coin = try #require(coins[index]["attributes"] as? [String: Any])
            switch coin["symbol"] as? String {
            case "BTC": coin["name"] = imageName
            case "ETH": coin["name"] = scriptName
            default: if index == coins.count - 1 { coin["symbol"] = svgSymbol }
            }
            coins[index]["attributes"] = coin
        }
        attributes["cryptocoins"] = coins
        var wallets = try #require(attributes["wallets"] as? [[String: Any]])
        var wallet = try #require(wallets[0]["attributes"] as? [String: Any])
        wallet["name"] = walletName
        wallets[0]["attributes"] = wallet
        attributes["wallets"] = wallets
        data["attributes"] = attributes
        root["data"] = data
        let file = directory.appendingPathComponent("hostile-masterdata.json")
        try JSONSerialization.data(withJSONObject: root).write(to: file)
        return file
    }

    @Test func markupInMasterdataShowsAsTextAndNeverRuns() async throws {
        let browser = try chromiumExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-hostile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let masterdata = try Self.hostileMasterdata(in: directory)
        try await FullStack(feeds: "mock", fetcherArguments: ["--masterdata", masterdata.path]).use { stack in
            let loaded = try await eventually(within: .seconds(30)) {
                try await stack.get("/api/views/assets?filter=all").body.contains("pwned")
            }
            #expect(loaded, "the hostile masterdata reached the presenter")
            let pages: [(path: String, shows: [String])] = [
                ("/assets?filter=all", [Self.imageName, Self.scriptName, Self.svgSymbol]),
                ("/wallets", [Self.walletName]),
                // The coin pages name coins after CoinGecko, not the masterdata: what they must show is the page, run nothing.
                ("/coins", []),
                ("/coins/BTC", []),
            ]
            for page in pages {
                let url = URL(string: page.path, relativeTo: stack.baseURL)!.absoluteString
                let (dom, log) = try await Chromium.run(browser, ["--dump-dom", url], in: stack.endpoints.directory)
                #expect(dom.contains("<html"), "\(page.path) loaded: \(dom.prefix(200))")
                #expect(!dom.contains("<title>pwned</title>") && !dom.contains("data-pwned=\"1\""), "a payload ran on \(page.path)")
                #expect(!dom.contains("<img src=\"/xss-marker.png\"") && !dom.contains("<iframe") && !dom.contains("<svg onload"),
                        "markup became elements on \(page.path)")
                for text in page.shows {
                    #expect(dom.contains(escapedAsChromiumDumps(text)), "\(page.path) shows \(text) as text")
                }
                let refused = log.split(separator: "\n").filter { $0.contains("Content Security Policy") || $0.contains("Refused to") }
                #expect(refused.isEmpty, "\(page.path): \(refused.joined(separator: "\n"))")
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// `text` as Chromium serializes it in an element's content: `&`, `<` and `>` escaped, quotes as they are.
    private func escapedAsChromiumDumps(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
