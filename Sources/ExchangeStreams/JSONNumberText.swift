/// Exchanges that send prices as JSON numbers (Kraken v2) send them "with full precision", and Kraken's checksum is
/// computed over those digits as written (`0.12290` is not `0.1229`). A decoder keeps no digits, so every number
/// outside a string is first written as a string of the same characters.
enum JSONNumberText {
    /// `json` with every number token outside a string quoted: `{"price":0.12290}` becomes `{"price":"0.12290"}`.
    static func quotingNumbers(_ json: String) -> String {
        let bytes = Array(json.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 4)
        var index = 0
        var inString = false
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                index += 1
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                out.append(byte)
                index += 1
            } else if byte == UInt8(ascii: "-") || isDigit(byte) {
                var end = index + 1
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: bytes[index..<end])
                out.append(UInt8(ascii: "\""))
                index = end
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
    }
}
