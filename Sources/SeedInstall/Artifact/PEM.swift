import Foundation

/// PEM framing as OpenSSL reads and writes it, read here for a trusted key's SubjectPublicKeyInfo;
/// writing keys, and the PKCS#8 private key form, are the build's (`SeedPipeline/Artifact/PEM+Write.swift`).
package enum PEM {
    /// DER before the 32 key bytes: SubjectPublicKeyInfo { AlgorithmIdentifier { 1.3.101.112 }, BIT STRING }.
    package static let ed25519PublicPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// The DER bytes between the `BEGIN`/`END` lines with `label`, or nil when there are none or the
    /// base64 is invalid.
    package static func decode(_ pem: String, label: String) -> [UInt8]? {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: "-----BEGIN \(label)-----"),
            let end = lines.firstIndex(of: "-----END \(label)-----"), begin < end
        else { return nil }
        return Data(base64Encoded: lines[(begin + 1)..<end].joined()).map(Array.init)
    }
}
