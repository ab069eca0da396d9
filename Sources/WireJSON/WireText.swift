/// A value the wire writes as a JSON string of plain ASCII (no escapes) and reads straight from the
/// string's bytes, never from a JSON number: money as `"1298.99"`, for one.
///
/// The WireJSON coders check for it before `Codable`, so such a value costs one parse of its bytes
/// and no container; a module that owns both the type and this protocol declares the conformance
/// (WireJSON itself knows no value type of Tickwire's).
public protocol WireText: Codable {
    /// The most bytes ``writeWireText(to:)`` writes.
    static var maxWireTextLength: Int { get }
    /// What the text must be, for errors: e.g. `money must be a decimal string such as "12.50"`.
    static var wireTextExpectation: String { get }
    /// Parses the string's bytes, without quotes; throws a sentence for text that is not one.
    init(wireText bytes: UnsafeBufferPointer<UInt8>) throws
    /// Writes the text, without quotes, to `out` (room for ``maxWireTextLength`` bytes); returns its length.
    func writeWireText(to out: UnsafeMutablePointer<UInt8>) -> Int
}
