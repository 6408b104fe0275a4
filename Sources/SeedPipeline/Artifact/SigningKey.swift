import Crypto
import Foundation
import SeedStore

/// An Ed25519 key pair for signing manifests, kept as PEM files OpenSSL can read
/// (PKCS#8 private key, SubjectPublicKeyInfo public key).
public struct SigningKey: Sendable {
    /// The private key's 32 raw bytes.
    let rawRepresentation: Data

    public static func generate() -> SigningKey {
        SigningKey(rawRepresentation: Curve25519.Signing.PrivateKey().rawRepresentation)
    }

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----`).
    /// - Throws: ``IngestError`` naming the file when it is missing or not an Ed25519 key.
    public static func load(_ path: String) throws(IngestError) -> SigningKey {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw IngestError(.missingInput, file: path, "cannot read the signing key; check the path (seedbuild keygen writes one)")
        }
        guard let der = PEM.decode(text, label: "PRIVATE KEY"), der.count == PEM.ed25519PrivatePrefix.count + 32,
            Array(der.prefix(PEM.ed25519PrivatePrefix.count)) == PEM.ed25519PrivatePrefix
        else {
            throw IngestError(.badProjectFile, file: path, "not an Ed25519 private key in PEM (PKCS#8) form; make one with seedbuild keygen")
        }
        return SigningKey(rawRepresentation: Data(der.suffix(32)))
    }

    public var publicKey: TrustedKey {
        TrustedKey(rawRepresentation: (try! Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)).publicKey.rawRepresentation)
    }

    public var privatePEM: String { PEM.encode(PEM.ed25519PrivatePrefix + Array(rawRepresentation), label: "PRIVATE KEY") }
    public var publicPEM: String { PEM.encode(PEM.ed25519PublicPrefix + Array(publicKey.rawRepresentation), label: "PUBLIC KEY") }

    /// Adds a `signature` member over the manifest's canonical form without it.
    public func sign(_ manifest: inout Manifest) throws {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)
        let signature = try key.signature(for: Data(manifest.signedBytes))
        manifest.values["signature"] = .object([
            "algorithm": "Ed25519",
            "keyId": .string(publicKey.keyID),
            "value": .string(signature.base64EncodedString()),
        ])
    }

    /// Writes `<dir>/seedbuild-signing.key` (mode 0600) and `<dir>/seedbuild-signing.pub`; refuses to overwrite a key.
    public func write(to directory: String) throws -> (privateKey: String, publicKey: String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let privatePath = (directory as NSString).appendingPathComponent("seedbuild-signing.key")
        let publicPath = (directory as NSString).appendingPathComponent("seedbuild-signing.pub")
        for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
            throw IngestError(.cannotCreateOutput, file: path, "a key is already there; move it away or choose another --out (keys are never overwritten)")
        }
        try writeAtomically(privatePEM, to: privatePath, mode: 0o600)
        try writeAtomically(publicPEM, to: publicPath, mode: 0o644)
        return (privatePath, publicPath)
    }
}

/// Writes text under a temporary name, syncs it and renames it into place with the given mode.
func writeAtomically(_ text: String, to path: String, mode: mode_t) throws {
    try writeAtomically(Data(text.utf8), to: path, mode: mode)
}

func writeAtomically(_ data: Data, to path: String, mode: mode_t) throws {
    let temporary = AtomicFile.temporaryPath(for: path)
    guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: mode]) else {
        throw IngestError(.cannotCreateOutput, file: path, "cannot write; check the folder exists and is writable")
    }
    do {
        try AtomicFile.commit(temporary, to: path, mode: mode)
    } catch {
        try? FileManager.default.removeItem(atPath: temporary)
        throw error
    }
}
