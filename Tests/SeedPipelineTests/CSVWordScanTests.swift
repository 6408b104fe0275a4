import Foundation
import Testing

@testable import SeedPipeline

/// The reader skips plain bytes eight at a time; the first byte it stops at must be the first one
/// the byte-class table calls special, or a comma, quote or line end would be read as text.
@Suite("CSV reader: eight bytes at a time")
struct CSVWordScanTests {
    /// The first byte of `bytes` the byte loop treats specially, or 8.
    private func firstSpecial(_ bytes: [UInt8]) -> Int {
        bytes.firstIndex { CSVReader.byteClasses[Int($0)] != 0 } ?? 8
    }

    private func scanned(_ bytes: [UInt8]) -> Int {
        let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        let special = CSVReader.specialBytes(in: word)
        return special == 0 ? 8 : special.trailingZeroBitCount >> 3
    }

    @Test func everyByteAtEveryPositionIsFoundFirst() {
        for byte in 0..<256 {
            for position in 0..<8 {
                for filler: UInt8 in [0x41, 0x01, 0x7F, 0x20] {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = UInt8(byte)
                    #expect(scanned(bytes) == firstSpecial(bytes), "byte \(byte) at \(position) among \(filler)")
                }
            }
        }
    }

    /// Words mixing the bytes a borrow can confuse (0x00, 0x01, 0x2B–0x2D, 0x80, 0xFF and the like).
    @Test func randomWordsStopWhereTheByteLoopWould() {
        let tricky: [UInt8] = [
            0x00, 0x01, 0x02, 0x0A, 0x0B, 0x0D, 0x0E, 0x21, 0x22, 0x23, 0x2B, 0x2C, 0x2D, 0x41, 0x7F, 0x80, 0x81, 0xC3, 0xFF,
        ]
        var state: UInt64 = 7
        for _ in 0..<200_000 {
            var bytes = [UInt8](repeating: 0, count: 8)
            for index in 0..<8 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes[index] = tricky[Int((state >> 33) % UInt64(tricky.count))]
            }
            let expected = firstSpecial(bytes)
            if scanned(bytes) != expected {
                Issue.record("\(bytes): stopped at \(scanned(bytes)), the byte loop at \(expected)")
                return
            }
        }
    }
}
