import Foundation
import ZeroMQ

/// A stack's CURVE certificates in the layout of pyzmq's `zmq.auth` and CZMQ, so Python and C clients share
/// the files:
///
/// - `public/<name>.key`: the public certificate of every trusted service and client;
/// - `private/<name>.key_secret`: a service's (or client's) own certificate, secret key included;
/// - `writers/<name>.key`: the public certificates allowed to call methods that change state.
///
/// `tickwire-keys generate DIR` makes one.
public struct KeyDirectory: Sendable {
    /// The directory.
    public let url: URL
    /// Every key in `public/`, by Z85 public key, with its file's name.
    public let readers: [String: String]
    /// Every key in `writers/`, by Z85 public key, with its file's name.
    public let writers: [String: String]

    /// The roles a User-Id names.
    public enum Role: String, Sendable {
        case reader, writer
    }

    /// Loads the public certificates of `url`; throws when it is not a keys directory.
    public init(_ url: URL) throws {
        self.url = url
        try CurveCertificate.requireCurve()
        guard FileManager.default.fileExists(atPath: url.appendingPathComponent("public").path) else {
            throw KeyDirectoryError.notAKeysDirectory(url.path)
        }
        readers = try Self.publicKeys(in: url.appendingPathComponent("public"))
        writers = try Self.publicKeys(in: url.appendingPathComponent("writers"))
    }

    /// The User-Id of a client whose public key is `key` (Z85): `writer:<name>` for a key in `writers/`,
    /// `reader:<name>` for one only in `public/`, nil for an unknown key.
    public func userID(of key: String) -> String? {
        if let name = writers[key] { return "\(Role.writer.rawValue):\(name)" }
        if let name = readers[key] { return "\(Role.reader.rawValue):\(name)" }
        return nil
    }

    /// Whether a connection's User-Id is a writer's.
    public static func isWriter(_ userID: String) -> Bool { userID.hasPrefix("\(Role.writer.rawValue):") }

    /// The own certificate of `name`, secret key included: `private/<name>.key_secret`.
    public func certificate(of name: String) throws -> CurveCertificate {
        let file = url.appendingPathComponent("private/\(name).key_secret")
        guard FileManager.default.fileExists(atPath: file.path) else { throw KeyDirectoryError.missing(file.path, what: "\(name)'s secret certificate") }
        let certificate = try CurveCertificate.load(file)
        guard certificate.secretKey != nil else { throw KeyDirectoryError.missing(file.path, what: "a secret-key in \(name)'s certificate") }
        return certificate
    }

    /// The public key (Z85) of the service `name`, which its clients need: `public/<name>.key`.
    public func serverKey(of name: String) throws -> String {
        let file = url.appendingPathComponent("public/\(name).key")
        guard FileManager.default.fileExists(atPath: file.path) else { throw KeyDirectoryError.missing(file.path, what: "\(name)'s public certificate") }
        return try CurveCertificate.load(file).publicKey
    }

    /// The security of a client named `client` connecting to the service `service`.
    public func clientSecurity(_ client: String, connectingTo service: String, maxMessageBytes: Int64 = SocketSecurity.defaultMaxMessageBytes) throws -> SocketSecurity {
        SocketSecurity(curve: .client(try certificate(of: client), serverKey: try serverKey(of: service)), maxMessageBytes: maxMessageBytes)
    }

    /// Makes the certificates of a stack in `url`: for each of `services` and `clients` a key pair (`private/`
    /// and `public/`); the public certificates of `writers` (which must be among them) also go into `writers/`.
    /// Existing certificates are kept, so adding a client does not change the others' keys.
    @discardableResult
    public static func generate(at url: URL, services: [String], clients: [String] = [], writers: [String] = []) throws -> [String: CurveCertificate] {
        try CurveCertificate.requireCurve()
        for folder in ["public", "private", "writers"] {
            try FileManager.default.createDirectory(at: url.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.appendingPathComponent("private").path)
        var made: [String: CurveCertificate] = [:]
        for name in services + clients where made[name] == nil {
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { throw KeyDirectoryError.badName(name) }
            let secretFile = url.appendingPathComponent("private/\(name).key_secret")
            let certificate = FileManager.default.fileExists(atPath: secretFile.path)
                ? try CurveCertificate.load(secretFile) : try CurveCertificate.generate()
            try certificate.writeSecret(to: secretFile)
            try certificate.writePublic(to: url.appendingPathComponent("public/\(name).key"))
            made[name] = certificate
        }
        for name in writers {
            guard let certificate = made[name] else { throw KeyDirectoryError.badName(name) }
            try certificate.writePublic(to: url.appendingPathComponent("writers/\(name).key"))
        }
        return made
    }

    /// Every `*.key` file in `folder`, by Z85 public key, with the file's name; none when it does not exist.
    private static func publicKeys(in folder: URL) throws -> [String: String] {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [:] }
        var keys: [String: String] = [:]
        for file in files.sorted() where file.hasSuffix(".key") {
            keys[try CurveCertificate.load(folder.appendingPathComponent(file)).publicKey] = String(file.dropLast(4))
        }
        return keys
    }
}

/// What is wrong with a keys directory.
public enum KeyDirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAKeysDirectory(String)
    case missing(String, what: String)
    case badName(String)

    public var description: String {
        switch self {
        case .notAKeysDirectory(let path):
            "\(path) is not a keys directory (no public/ in it): make one with `tickwire-keys generate \(path)`"
        case .missing(let path, let what):
            "no \(what) at \(path): make the stack's keys with `tickwire-keys generate DIR` (or add this one with `tickwire-keys generate DIR --clients NAME`)"
        case .badName(let name):
            "\"\(name)\" cannot name a certificate (a writer must also be a service or a client; no \"/\", no leading \".\")"
        }
    }
}
