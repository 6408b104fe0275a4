import Crypto
import Foundation
import SeedInstall
import Testing

/// `TableDigest` hashes the canonical encoding `ContentDigest` documents: checked against SHA-256 of
/// the same bytes laid out by hand, across the 64 KiB buffer's edges and for fields longer than it.
@Suite("Table digests: the canonical encoding, across the buffer's edges")
struct TableDigestTests {
    enum Value {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])
    }

    /// The encoding as ContentDigest's documentation states it.
    static func encoded(_ values: [Value]) -> [UInt8] {
        var bytes: [UInt8] = []
        func word(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
        func field(_ tag: UInt8, _ body: [UInt8]) {
            bytes.append(tag)
            withUnsafeBytes(of: UInt32(body.count).bigEndian) { bytes += $0 }
            bytes += body
        }
        for value in values {
            switch value {
            case .null: bytes.append(0)
            case .integer(let number):
                bytes.append(1)
                word(UInt64(bitPattern: number))
            case .real(let number):
                bytes.append(2)
                word(number.bitPattern)
            case .text(let text): field(3, Array(text.utf8))
            case .blob(let data): field(4, data)
            }
        }
        return bytes
    }

    static func digest(_ values: [Value]) -> Data {
        var digest = TableDigest()
        for value in values {
            switch value {
            case .null: digest.appendNull()
            case .integer(let number): digest.append(integer: number)
            case .real(let number): digest.append(real: number)
            case .text(let text): Array(text.utf8).withUnsafeBytes { digest.append(text: $0) }
            case .blob(let data): data.withUnsafeBytes { digest.append(blob: $0) }
            }
        }
        return digest.finalize()
    }

    @Test(arguments: [0, 1, 7, 65_531, 65_536, 65_537, 200_000])
    func matchesTheDocumentedEncoding(longField: Int) {
        var values: [Value] = []
        // Enough small values to cross the buffer's edge several times at odd offsets.
        for index in 0..<30_000 {
            switch index % 5 {
            case 0: values.append(.integer(Int64(index) * -7_919))
            case 1: values.append(.real(Double(index) / 3))
            case 2: values.append(.text("row \(index) é"))
            case 3: values.append(.null)
            default: values.append(.blob([UInt8](repeating: UInt8(index % 251), count: index % 13)))
            }
            if index == 12_345 { values.append(.blob((0..<longField).map { UInt8(truncatingIfNeeded: $0 &* 31) })) }
        }
        let expected = Data(SHA256.hash(data: Self.encoded(values)))
        #expect(Self.digest(values) == expected)
    }
}
