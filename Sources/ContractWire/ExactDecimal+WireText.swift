import Money
import WireJSON

/// Money on the wire: a decimal string (`"1298.99"`), written from and parsed into its digits with no
/// container and no binary floating point, and never read from a JSON number.
extension ExactDecimal: WireText {
    public static var maxWireTextLength: Int { maxTextLength }

    public static var wireTextExpectation: String { #"money must be a decimal string such as "12.50""# }

    @inlinable
    public init(wireText bytes: UnsafeBufferPointer<UInt8>) throws {
        try self.init(utf8: bytes)
    }

    @inlinable
    public func writeWireText(to out: UnsafeMutablePointer<UInt8>) -> Int { write(to: out) }
}
