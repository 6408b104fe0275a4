import Crypto
import Foundation
import SeedTestSupport
import Testing

@testable import SeedInstall

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
        try rewritten.truncate()
        try rewritten.write(chunks[2], at: 0)
        try expectDigestIsTheFiles(rewritten)
    }

    /// Where the file system cannot clone (tmpfs never can), the store is copied whole, and the
    /// copy's progress runs from 0 to the file's size; the copy holds the source's bytes.
    @Test func aCopyWhereNoCloneIsPossibleReportsItsProgress() throws {
        let shm = "/dev/shm"
        var status = stat()
        let folder =
            stat(shm, &status) == 0 ? shm + "/seedbuild-copy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" : directory.path("copy")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Larger than one 16 MiB step, and not a multiple of it.
        let bytes = Data((0..<(17 << 20) + 12_345).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) })
        let source = folder + "/source.sqlite"
        try bytes.write(to: URL(fileURLWithPath: source))
        var reports: [(Int64, Int64)] = []
        let copy = try DownloadFile.clone(of: source, to: folder + "/copy.sqlite") { reports.append(($0, $1)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy.path)) == bytes)
        let size = Int64(bytes.count)
        #expect(reports.first.map { $0 == (0, size) } == true, "\(reports)")
        #expect(reports.last.map { $0 == (size, size) } == true, "\(reports)")
        #expect(reports.count >= 3 && zip(reports, reports.dropFirst()).allSatisfy { $0.0 < $1.0 && $0.1 == $1.1 }, "\(reports)")
    }
}
