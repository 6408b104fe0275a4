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

    /// The environment variable the default command and `compress` take a PEM private key from when
    /// no `--sign-key` is given (CI secrets arrive as variables).
    public static let environmentVariable = "SEEDBUILD_SIGN_KEY"

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----`) from a file, or from an environment
    /// variable's value when `path` is `env:NAME`.
    /// - Throws: ``IngestError`` naming the file or variable when it is missing or not an Ed25519 key.
    public static func load(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(IngestError)
        -> SigningKey
    {
        if path.hasPrefix("env:") {
            let name = String(path.dropFirst(4))
            guard let text = environment[name], !text.isEmpty else {
                throw IngestError(
                    .missingInput, file: "$\(name)", "the environment variable is not set or empty; it should hold the PEM private key")
            }
            return try parse(text, source: "$\(name)")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw IngestError(.missingInput, file: path, "cannot read the signing key; check the path (seedbuild keygen writes one)")
        }
        return try parse(text, source: path)
    }

    /// The key `--sign-key` names, else the one in ``environmentVariable``, else none.
    public static func load(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(IngestError)
        -> SigningKey?
    {
        if let option { return try load(option, environment: environment) }
        guard let text = environment[environmentVariable], !text.isEmpty else { return nil }
        return try parse(text, source: "$\(environmentVariable)")
    }

    private static func parse(_ text: String, source path: String) throws(IngestError) -> SigningKey {
        guard let der = PEM.decode(text, label: "PRIVATE KEY"), der.count == PEM.ed25519PrivatePrefix.count + 32,
            Array(der.prefix(PEM.ed25519PrivatePrefix.count)) == PEM.ed25519PrivatePrefix
        else {
            throw IngestError(
                .badProjectFile, file: path, "not an Ed25519 private key in PEM (PKCS#8) form; make one with seedbuild keygen")
        }
        return SigningKey(rawRepresentation: Data(der.suffix(32)))
    }

    public var publicKey: TrustedKey {
        TrustedKey(
            rawRepresentation: (try! Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)).publicKey.rawRepresentation)
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

    /// Writes `<dir>/seedbuild-signing.key` (mode 0600) and `<dir>/seedbuild-signing.pub`; refuses to
    /// overwrite a key, and to write the private key inside a git work tree that does not ignore it.
    public func write(to directory: String) throws -> (privateKey: String, publicKey: String) {
        let privatePath = (directory as NSString).appendingPathComponent("seedbuild-signing.key")
        try KeyLocation.checkOutsideWorkTree(privatePath)
        try createOutputFolder(directory)
        let publicPath = (directory as NSString).appendingPathComponent("seedbuild-signing.pub")
        for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
            throw IngestError(
                .cannotCreateOutput, file: path, "a key is already there; move it away or choose another --out (keys are never overwritten)"
            )
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
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
    guard fd >= 0 else {
        throw IngestError(
            .cannotCreateOutput, file: path, "cannot create (\(String(cString: strerror(errno)))); check the folder exists and is writable")
    }
    let written = data.withUnsafeBytes { bytes -> Int in
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return -1 }
            offset += count
        }
        return offset
    }
    let cause = String(cString: strerror(errno))
    close(fd)
    guard written == data.count else {
        try? FileManager.default.removeItem(atPath: temporary)
        throw IngestError(.ioFailure, file: path, "cannot write (\(cause)); check free space on its device")
    }
    do {
        try AtomicFile.commit(temporary, to: path, mode: mode)
    } catch {
        try? FileManager.default.removeItem(atPath: temporary)
        throw error
    }
}
