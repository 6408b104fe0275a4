import Foundation
import SeedInstall

extension PEM {
    /// DER before the 32 key bytes: PrivateKeyInfo { version 0, AlgorithmIdentifier { 1.3.101.112 }, OCTET STRING { OCTET STRING } }.
    static let ed25519PrivatePrefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]
    /// `der` in base64 lines of 64 characters between the `BEGIN` and `END` lines for `label`.
    static func encode(_ der: [UInt8], label: String) -> String {
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
}
