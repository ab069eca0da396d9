/// A currency: ISO 4217 fiats with their minor units, crypto symbols, and commodities.
///
/// A 3-letter code in the ISO 4217 table of active codes is a fiat with ISO's minor units;
/// XAU, XAG, XPT and XPD are commodities with 4; every other well-formed code is crypto with 8.
/// Codes ISO lists without minor units (XDR, XSU, XUA, XBA–XBD, XTS, XXX) and withdrawn codes
/// (e.g. BGN, ANG, HRK) are not in the table, so they count as crypto too.
public struct Currency: Sendable, Hashable, CustomStringConvertible {
    /// What sort of asset a code names.
    public enum Kind: String, Sendable, Codable {
        /// A national or regional currency from the ISO 4217 table.
        case fiat
        /// A crypto asset (any well-formed code that is neither fiat nor commodity).
        case crypto
        /// A precious metal: XAU, XAG, XPT, XPD.
        case commodity
    }

    /// The upper-case code, e.g. "EUR", "BTC", "XAU".
    public let code: String
    /// Digits after the decimal point in normal use: ISO minor units for fiats, 8 for crypto, 4 for commodities.
    public let minorUnits: Int
    /// Fiat, crypto or commodity.
    public let kind: Kind

    private init(checkedCode code: String, minorUnits: Int, kind: Kind) {
        self.code = code
        self.minorUnits = minorUnits
        self.kind = kind
    }

    /// The currency for `code`, taken exactly (no trimming); ASCII letters may be lower case and are upper-cased.
    /// Throws ``MoneyError/invalidCurrencyCode(_:)`` unless the code is 2 to 12 ASCII letters or digits.
    public init(code: String) throws(MoneyError) {
        guard let upper = Self.wellFormed(code) else { throw .invalidCurrencyCode(code) }
        if let minorUnits = isoMinorUnits[upper] {
            self.init(checkedCode: upper, minorUnits: minorUnits, kind: .fiat)
        } else if commodityCodes.contains(upper) {
            self.init(checkedCode: upper, minorUnits: 4, kind: .commodity)
        } else {
            self.init(checkedCode: upper, minorUnits: 8, kind: .crypto)
        }
    }

    /// The ISO 4217 fiat for `code` (any letter case), or nil when the code is not an active ISO fiat.
    public static func iso(_ code: String) -> Currency? {
        guard let upper = wellFormed(code), let minorUnits = isoMinorUnits[upper] else { return nil }
        return Currency(checkedCode: upper, minorUnits: minorUnits, kind: .fiat)
    }

    /// Every active ISO 4217 fiat with numeric minor units, sorted by code.
    public static let isoCurrencies: [Currency] = isoMinorUnits.keys.sorted().compactMap { iso($0) }

    /// Euro, 2 minor units.
    public static let eur = Currency(checkedCode: "EUR", minorUnits: 2, kind: .fiat)
    /// US dollar, 2 minor units.
    public static let usd = Currency(checkedCode: "USD", minorUnits: 2, kind: .fiat)
    /// Swedish krona, 2 minor units.
    public static let sek = Currency(checkedCode: "SEK", minorUnits: 2, kind: .fiat)
    /// Mexican peso, 2 minor units.
    public static let mxn = Currency(checkedCode: "MXN", minorUnits: 2, kind: .fiat)
    /// Pound sterling, 2 minor units.
    public static let gbp = Currency(checkedCode: "GBP", minorUnits: 2, kind: .fiat)
    /// Japanese yen, 0 minor units.
    public static let jpy = Currency(checkedCode: "JPY", minorUnits: 0, kind: .fiat)

    /// The code.
    public var description: String { code }

    /// `code` upper-cased if it is 2 to 12 ASCII letters or digits, else nil.
    static func wellFormed(_ code: String) -> String? {
        let bytes = code.utf8
        guard (2...12).contains(bytes.count) else { return nil }
        var isUpper = true
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"): isUpper = false
            default: return nil
            }
        }
        return isUpper ? code : String(decoding: bytes.map { $0 >= UInt8(ascii: "a") ? $0 - 32 : $0 }, as: UTF8.self)
    }
}

extension Currency: Codable {
    /// Encodes as the bare code string, e.g. `"EUR"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    /// Decodes from a bare code string, validated like ``init(code:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let code = try container.decode(String.self)
        do throws(MoneyError) {
            self = try Currency(code: code)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }
}

/// The precious metals ISO 4217 lists (without minor units), treated as commodities.
private let commodityCodes: Set<String> = ["XAU", "XAG", "XPT", "XPD"]

/// ISO 4217 list one (published 2026-01-01): every active code with numeric minor units, as code + digits.
private let isoTable = """
    AED2 AFN2 ALL2 AMD2 AOA2 ARS2 AUD2 AWG2 AZN2 BAM2 BBD2 BDT2 BHD3 BIF0 BMD2 BND2 BOB2 BOV2 BRL2 BSD2
    BTN2 BWP2 BYN2 BZD2 CAD2 CDF2 CHE2 CHF2 CHW2 CLF4 CLP0 CNY2 COP2 COU2 CRC2 CUP2 CVE2 CZK2 DJF0 DKK2
    DOP2 DZD2 EGP2 ERN2 ETB2 EUR2 FJD2 FKP2 GBP2 GEL2 GHS2 GIP2 GMD2 GNF0 GTQ2 GYD2 HKD2 HNL2 HTG2 HUF2
    IDR2 ILS2 INR2 IQD3 IRR2 ISK0 JMD2 JOD3 JPY0 KES2 KGS2 KHR2 KMF0 KPW2 KRW0 KWD3 KYD2 KZT2 LAK2 LBP2
    LKR2 LRD2 LSL2 LYD3 MAD2 MDL2 MGA2 MKD2 MMK2 MNT2 MOP2 MRU2 MUR2 MVR2 MWK2 MXN2 MXV2 MYR2 MZN2 NAD2
    NGN2 NIO2 NOK2 NPR2 NZD2 OMR3 PAB2 PEN2 PGK2 PHP2 PKR2 PLN2 PYG0 QAR2 RON2 RSD2 RUB2 RWF0 SAR2 SBD2
    SCR2 SDG2 SEK2 SGD2 SHP2 SLE2 SOS2 SRD2 SSP2 STN2 SVC2 SYP2 SZL2 THB2 TJS2 TMT2 TND3 TOP2 TRY2 TTD2
    TWD2 TZS2 UAH2 UGX0 USD2 USN2 UYI0 UYU2 UYW4 UZS2 VED2 VES2 VND0 VUV0 WST2 XAD2 XAF0 XCD2 XCG2 XOF0
    XPF0 YER2 ZAR2 ZMW2 ZWG2
    """

/// ISO minor units by code, parsed once from ``isoTable``.
let isoMinorUnits: [String: Int] = {
    var table: [String: Int] = [:]
    for entry in isoTable.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
        guard entry.count == 4, let digits = Int(String(entry.suffix(1))) else { continue }
        table[String(entry.prefix(3))] = digits
    }
    return table
}()
