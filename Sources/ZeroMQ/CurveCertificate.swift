import CZeroMQ
import Foundation

/// A CURVE certificate: a public key and, in a secret certificate, its secret key (40 Z85 characters each),
/// read from and written to the ZPL files that pyzmq's `zmq.auth` and CZMQ's `zcert` use:
///
/// ```
/// metadata
/// curve
///     public-key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
///     secret-key = "JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6"
/// ```
public struct CurveCertificate: Sendable, Hashable {
    /// The public key, Z85.
    public let publicKey: String
    /// The secret key, Z85; nil in a public certificate.
    public let secretKey: String?

    /// A certificate of Z85 keys; throws unless each is 40 Z85 characters.
    public init(publicKey: String, secretKey: String? = nil) throws(CertificateError) {
        guard Self.decode(publicKey) != nil else { throw .invalidKey("public-key", publicKey) }
        if let secretKey, Self.decode(secretKey) == nil { throw .invalidKey("secret-key", "(not shown)") }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A fresh key pair from libzmq (`zmq_curve_keypair`); fails clearly when libzmq lacks CURVE.
    public static func generate() throws -> CurveCertificate {
        try requireCurve()
        let pair = try CurveKeyPair.generate()
        return try CurveCertificate(publicKey: pair.publicKey, secretKey: pair.secretKey)
    }

    /// This certificate without its secret key.
    public var publicOnly: CurveCertificate { (try? CurveCertificate(publicKey: publicKey)) ?? self }

    /// The public key's 32 bytes (what a ZAP request carries).
    public var publicKeyBytes: Data { Self.decode(publicKey) ?? Data() }

    /// Reads a ZPL certificate as `zmq.auth.load_certificate` does: the `public-key` and `secret-key`
    /// entries, whichever section they sit in; comments and other entries are skipped.
    public init(zpl text: String) throws(CertificateError) {
        var publicKey: String?
        var secretKey: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            for name in ["public-key", "secret-key"] where line.hasPrefix(name) {
                guard let equals = line.firstIndex(of: "=") else { throw .malformed("\(name) has no \"=\"") }
                let key = line[line.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t'\""))
                if name == "public-key" { publicKey = key } else { secretKey = key }
            }
        }
        guard let publicKey else { throw .malformed("no public-key") }
        try self.init(publicKey: publicKey, secretKey: secretKey)
    }

    /// The ZPL text of the certificate, as `zmq.auth.create_certificates` writes it: with the secret key
    /// when `includingSecret` (a `.key_secret` file), else public only (a `.key` file).
    public func zpl(includingSecret: Bool) -> String {
        let secret = includingSecret ? secretKey : nil
        var text = secret == nil
            ? "#   ZeroMQ CURVE Public Certificate\n#   Exchange securely, or use a secure mechanism to verify the contents\n#   of this file after exchange.\n\n"
            : "#   ZeroMQ CURVE **Secret** Certificate\n#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n\n"
        text += "metadata\ncurve\n    public-key = \"\(publicKey)\"\n"
        if let secret { text += "    secret-key = \"\(secret)\"\n" }
        return text
    }

    /// Reads the certificate file at `url`.
    public static func load(_ url: URL) throws -> CurveCertificate {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CertificateError.unreadable(url.path, "\(error.localizedDescription)")
        }
        do {
            return try CurveCertificate(zpl: String(decoding: data, as: UTF8.self))
        } catch {
            throw CertificateError.unreadable(url.path, error.description)
        }
    }

    /// Writes the public certificate to `url`, readable by everyone.
    public func writePublic(to url: URL) throws {
        try Data(zpl(includingSecret: false).utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
    }

    /// Writes the secret certificate to `url`, readable by its owner only.
    public func writeSecret(to url: URL) throws {
        guard secretKey != nil else { throw CertificateError.malformed("no secret key to write to \(url.path)") }
        _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        try Data(zpl(includingSecret: true).utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    /// The 40 Z85 characters of 32 key bytes.
    public static func encode(_ key: Data) -> String? {
        guard key.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        let encoded = key.withUnsafeBytes { zmq_z85_encode(&text, $0.bindMemory(to: UInt8.self).baseAddress, 32) }
        guard encoded != nil else { return nil }
        return String(decoding: text.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The 32 bytes of a 40-character Z85 key, or nil if it is not one.
    static func decode(_ text: String) -> Data? {
        guard text.utf8.count == 40 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard zmq_z85_decode(&bytes, text) != nil else { return nil }
        return Data(bytes)
    }

    /// Throws unless the linked libzmq was built with CURVE (`zmq_has("curve")`).
    public static func requireCurve() throws(CertificateError) {
        guard zmq_has("curve") != 0 else { throw .curveUnavailable(ZMQContext.libraryVersion) }
    }
}

/// What went wrong with a certificate.
public enum CertificateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A key that is not 40 Z85 characters.
    case invalidKey(String, String)
    /// A file that is not a ZPL certificate.
    case malformed(String)
    /// A file that could not be read or parsed.
    case unreadable(String, String)
    /// libzmq built without CURVE.
    case curveUnavailable(String)

    public var description: String {
        switch self {
        case .invalidKey(let name, let value): "\(name) is not a 40-character Z85 key: \(value)"
        case .malformed(let reason): "not a ZPL certificate: \(reason)"
        case .unreadable(let path, let reason): "cannot read the certificate \(path): \(reason)"
        case .curveUnavailable(let version):
            "libzmq \(version) was built without CURVE (zmq_has(\"curve\") is false): install a libzmq with libsodium or its own tweetnacl, e.g. Debian's libzmq3-dev"
        }
    }
}
