import Crypto
import Foundation
@testable import SeedInstall
import SeedTestSupport
import Testing

/// A download's digest is hashed as it is written when the file was written in order from its start,
/// and read back otherwise: either way it is the file's.
@Suite("Download files")
struct DownloadFileTests {
    private let directory = TemporaryDirectory()

    private func expectDigestIsTheFiles(_ file: DownloadFile) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file.path))
        let digest = try file.digest()
        #expect(digest.bytes == Int64(bytes.count))
        #expect(digest.sha256 == Data(SHA256.hash(data: bytes)).hexString)
    }

    @Test func writtenInOrderOrNot() throws {
        let chunks = (0..<5).map { index in Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) }) }
        let inOrder = try DownloadFile.create(directory.url("in-order").path)
        var offset: Int64 = 0
        for chunk in chunks {
            try inOrder.write(chunk, at: offset)
            offset += Int64(chunk.count)
        }
        try expectDigestIsTheFiles(inOrder)

        // Going on from the end of an earlier try: the bytes before were not hashed here.
        let resumed = try DownloadFile.openForResume(directory.url("in-order").path)
        try resumed.write(chunks[0], at: resumed.size)
        try expectDigestIsTheFiles(resumed)

        // A write over earlier bytes, then a truncation back to nothing and a fresh start.
        let rewritten = try DownloadFile.create(directory.url("rewritten").path)
        try rewritten.write(chunks[0], at: 0)
        try rewritten.write(chunks[1], at: 1_000)
        try expectDigestIsTheFiles(rewritten)
        try rewritten.truncate(to: 500)
        try expectDigestIsTheFiles(rewritten)
        try rewritten.truncate()
        try rewritten.write(chunks[2], at: 0)
        try expectDigestIsTheFiles(rewritten)
    }
}
