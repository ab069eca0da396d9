import Foundation
import PresenterViews

/// A generated icon: the symbol's first letters on a disc whose colour is derived from the symbol, what the
/// presenter serves for an asset without a real icon (a plugin's new coin, one whose image cannot be fetched).
///
/// The hue comes from the symbol alone, so a coin keeps its colour; the lightness is chosen so the letters stand
/// out from the disc by at least ``minimumContrast`` (WCAG's ratio for normal text): white letters on a dark disc
/// for light pages, dark letters on a light disc for dark pages, where the disc also stands out from the page.
enum Monogram {
    /// The least contrast between the letters and the disc.
    static let minimumContrast = 4.5
    /// The letters' colour on light pages' discs.
    static let lightText = RGB(red: 255, green: 255, blue: 255)
    /// The letters' colour on dark pages' discs: the dashboard's dark background.
    static let darkText = RGB(red: 16, green: 21, blue: 28)

    /// An SVG of `symbol`'s monogram for `variant` backgrounds.
    static func svg(_ symbol: String, variant: IconPath.Variant) -> String {
        let (fill, text) = colours(symbol, variant: variant)
        let letters = escapeHTML(letters(of: symbol))
        let size = switch letters.count { case 0...1: 16; case 2: 14; default: 11 }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 32 32" role="img" aria-label="\(letters)">\
            <circle cx="16" cy="16" r="16" fill="\(fill.hex)"/>\
            <text x="16" y="16" dy="0.35em" text-anchor="middle" font-family="system-ui, sans-serif" font-weight="700" \
            font-size="\(size)" fill="\(text.hex)">\(letters)</text></svg>
            """
    }

    /// What the disc shows: the whole symbol up to 3 characters, else its first 2.
    static func letters(of symbol: String) -> String {
        String(symbol.prefix(symbol.count > 3 ? 2 : 3))
    }

    /// The disc's and the letters' colours of `symbol` for `variant`.
    static func colours(_ symbol: String, variant: IconPath.Variant) -> (fill: RGB, text: RGB) {
        var hash: UInt32 = 2_166_136_261
        for byte in symbol.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let hue = Double(hash % 360)
        let text = variant == .light ? lightText : darkText
        // From a lightness that suits most hues, darker (light pages) or lighter (dark pages) until the letters
        // read: yellows and greens need it, blues do not.
        let lightnesses = variant == .light ? Array(stride(from: 0.45, through: 0.0, by: -0.01)) : Array(stride(from: 0.68, through: 1.0, by: 0.01))
        for lightness in lightnesses {
            let fill = RGB(hue: hue, saturation: 0.6, lightness: lightness)
            if fill.contrast(with: text) >= minimumContrast { return (fill, text) }
        }
        return (variant == .light ? RGB(red: 0, green: 0, blue: 0) : RGB(red: 255, green: 255, blue: 255), text)
    }

    /// An sRGB colour, 8 bits a channel.
    struct RGB: Equatable {
        var red: Int
        var green: Int
        var blue: Int

        /// `#rrggbb`.
        var hex: String {
            "#" + [red, green, blue].map { channel in
                let digits = String(channel, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
        }

        /// A colour by its component values.
        init(red: Int, green: Int, blue: Int) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// The colour of `hue` (degrees), `saturation` and `lightness` (0 to 1).
        init(hue: Double, saturation: Double, lightness: Double) {
            let chroma = (1 - abs(2 * lightness - 1)) * saturation
            let sector = hue / 60
            let second = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
            let (r, g, b): (Double, Double, Double) = switch Int(sector) {
            case 0: (chroma, second, 0)
            case 1: (second, chroma, 0)
            case 2: (0, chroma, second)
            case 3: (0, second, chroma)
            case 4: (second, 0, chroma)
            default: (chroma, 0, second)
            }
            let match = lightness - chroma / 2
            func channel(_ value: Double) -> Int { min(255, max(0, Int(((value + match) * 255).rounded()))) }
            self.init(red: channel(r), green: channel(g), blue: channel(b))
        }

        /// WCAG 2's relative luminance.
        var luminance: Double {
            func linear(_ channel: Int) -> Double {
                let value = Double(channel) / 255
                return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        }

        /// WCAG 2's contrast ratio with `other`, 1 to 21.
        func contrast(with other: RGB) -> Double {
            let (high, low) = luminance > other.luminance ? (luminance, other.luminance) : (other.luminance, luminance)
            return (high + 0.05) / (low + 0.05)
        }
    }
}
