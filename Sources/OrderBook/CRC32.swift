/// CRC-32 as zlib and PNG compute it (IEEE 802.3, reflected polynomial 0xEDB88320): "123456789" gives 0xCBF43926.
/// Table-driven, a byte at a time; Foundation on Linux has none and this needs no C.
public struct CRC32: Sendable, Hashable {
    /// The checksum of the bytes so far.
    public var value: UInt32 { ~state }

    private var state: UInt32 = 0xFFFF_FFFF

    /// The checksum of no bytes (0).
    public init() {}

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = state
        for byte in bytes {
            crc = crc32Table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        state = crc
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}

/// Each byte's remainder, for ``CRC32``.
private let crc32Table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 {
        value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
    }
    return value
}
