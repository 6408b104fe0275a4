import Crypto
import Foundation

/// An Ed25519 public key a manifest may be signed with, identified by the first 16 hex characters
/// of the SHA-256 of its 32 raw bytes.
public struct TrustedKey: Sendable, Hashable {
    /// The key's 32 raw bytes.
    public let rawRepresentation: Data

    /// A key from its 32 raw bytes; ``verify(_:)`` rejects every signature if they are not an Ed25519 key.
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

    /// The key's id, as a signed manifest names it in `signature.keyId`: the first 16 hex characters
    /// of the SHA-256 of its raw bytes.
    public var keyID: String { String(Data(SHA256.hash(data: rawRepresentation)).hexString.prefix(16)) }

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
