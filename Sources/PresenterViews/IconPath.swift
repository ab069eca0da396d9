/// Where the presenter serves an asset's icon: `/icons/<SYMBOL>-<light|dark>.svg`. Views point only here,
/// never at a remote host; the presenter answers with the icon it fetched once and cached, or a monogram.
public enum IconPath {
    /// The icon of `symbol` for light backgrounds, e.g. "/icons/BTC-light.svg".
    public static func light(_ symbol: String) -> String { path(symbol, variant: .light) }

    /// The icon of `symbol` for dark backgrounds, e.g. "/icons/BTC-dark.svg".
    public static func dark(_ symbol: String) -> String { path(symbol, variant: .dark) }

    /// Which background an icon is drawn for.
    public enum Variant: String, Sendable, CaseIterable {
        /// Light backgrounds.
        case light
        /// Dark backgrounds.
        case dark
    }

    /// The path of `symbol`'s icon for `variant`.
    public static func path(_ symbol: String, variant: Variant) -> String {
        "/icons/\(symbol.uppercased())-\(variant.rawValue).svg"
    }

    /// The symbol and variant a file name under `/icons/` names, e.g. "ETH-dark.svg" (".png" is accepted too);
    /// throws ``ViewError`` for any other name.
    public static func parse(_ file: String) throws -> (symbol: String, variant: Variant) {
        let stem: Substring
        if file.hasSuffix(".svg") || file.hasSuffix(".png") {
            stem = file.dropLast(4)
        } else {
            throw ViewError.invalidIcon("an icon's name must end in .svg or .png, e.g. BTC-light.svg; got \"\(file)\"")
        }
        guard let dash = stem.lastIndex(of: "-"), let variant = Variant(rawValue: String(stem[stem.index(after: dash)...])) else {
            throw ViewError.invalidIcon("an icon's name must be <SYMBOL>-light or <SYMBOL>-dark, e.g. BTC-dark.svg; got \"\(file)\"")
        }
        let symbol = stem[..<dash]
        guard (1...12).contains(symbol.count), symbol.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw ViewError.invalidIcon("an icon's symbol must be 1 to 12 letters or digits; got \"\(symbol)\"")
        }
        return (symbol.uppercased(), variant)
    }
}
