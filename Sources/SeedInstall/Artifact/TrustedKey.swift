import Crypto
import Foundation

/// An Ed25519 public key a manifest may be signed with, identified by the first 16 hex characters
/// of the SHA-256 of its 32 raw bytes.
public struct TrustedKey: Sendable, Hashable {
    /// The key's 32 raw bytes.
    public let rawRepresentation: Data

    public init(rawRepresentation: Data) {
        self.rawRepresentation = rawRepresentation
    }

    /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo, as `openssl pkey -pubout` writes).
    public init(pem: String, path: String) throws(StoreError) {
        guard let der = PEM.decode(pem, label: "PUBLIC KEY"), der.count == PEM.ed25519PublicPrefix.count + 32,
            Array(der.prefix(PEM.ed25519PublicPrefix.count)) == PEM.ed25519PublicPrefix,
            (try? Curve25519.Signing.PublicKey(rawRepresentation: der.suffix(32))) != nil
        else { throw StoreError(.refused, path: path, "not an Ed25519 public key in PEM form; use the .pub file seedbuild keygen wrote") }
        rawRepresentation = Data(der.suffix(32))
    }

    public var keyID: String { Self.keyID(of: rawRepresentation) }

    public static func keyID(of raw: Data) -> String {
        String(Data(SHA256.hash(data: raw)).hexString.prefix(16))
    }

    /// Whether the manifest carries a valid signature by this key.
    public func verify(_ manifest: Manifest) -> Bool {
        guard let signature = manifest.values["signature"]?.objectValue,
            signature["algorithm"]?.stringValue == "Ed25519", signature["keyId"]?.stringValue == keyID,
            let encoded = signature["value"]?.stringValue, let bytes = Data(base64Encoded: encoded),
            let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation)
        else { return false }
        return publicKey.isValidSignature(bytes, for: Data(manifest.signedBytes))
    }
}

/// PEM framing of Ed25519 keys in the PKCS#8 and SubjectPublicKeyInfo forms OpenSSL reads and writes.
public enum PEM {
    /// DER before the 32 key bytes: PrivateKeyInfo { version 0, AlgorithmIdentifier { 1.3.101.112 }, OCTET STRING { OCTET STRING } }.
    public static let ed25519PrivatePrefix: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]
    /// DER before the 32 key bytes: SubjectPublicKeyInfo { AlgorithmIdentifier { 1.3.101.112 }, BIT STRING }.
    public static let ed25519PublicPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    public static func encode(_ der: [UInt8], label: String) -> String {
        let base64 = Data(der).base64EncodedString()
        var lines = ["-----BEGIN \(label)-----"]
        var index = base64.startIndex
        while index < base64.endIndex {
            let next = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<next]))
            index = next
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }

    public static func decode(_ pem: String, label: String) -> [UInt8]? {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: "-----BEGIN \(label)-----"),
            let end = lines.firstIndex(of: "-----END \(label)-----"), begin < end
        else { return nil }
        return Data(base64Encoded: lines[(begin + 1)..<end].joined()).map(Array.init)
    }
}
