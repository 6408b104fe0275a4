import Crypto
import Foundation
import GRDB
import SeedTestSupport
import Testing

@testable import SeedPipeline

@Suite("Naturally sorted files merged by their runs")
struct SortedRunsTests {
    /// Postcodes in natural order (CT1 … CT9, CT10 … CT40, DA1 …): each area's districts from 10 up
    /// form a run below the one before.
    static func naturalKeys(areas: [String] = ["CT", "DA", "E", "G", "N"], districts: Int = 40) -> [String] {
        areas.flatMap { area in (1...districts).flatMap { district in ["1AA", "1AB", "2AA"].map { "\(area)\(district) \($0)" } } }
    }

    static func byteOrder(_ keys: [String]) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Reads `reader` up to the first record whose key (field 0, text) descends, as the loader does:
    /// that record's offset, line and key.
    static func readToFirstDescent(_ reader: CSVReader) throws -> (descent: (offset: Int, line: Int), key: SortKey) {
        var previous = ""
        while let record = try reader.next() {
            let text = record.string(0)
            if text.utf8.lexicographicallyPrecedes(previous.utf8) {
                var key = SortKey()
                key.load(record, field: 0, type: .string)
                return ((reader.recordOffset, record.line), key)
            }
            previous = text
        }
        Issue.record("no descent in \(reader.path)")
        throw CancellationError()
    }

    /// The scan finds each run's start; the merge hands every record out once, in byte order, and a
    /// recoverable error out where it stands, with its own line and bytes — also when every reader's
    /// buffer holds less than a record, so records straddle refills.
    @Test(arguments: [1 << 20, 24])
    func theMergeHandsEveryRecordOutOnceInKeyOrder(bufferSize: Int) throws {
        let directory = TemporaryDirectory()
        var keys = Self.naturalKeys()
        // A quoted key and one with doubled quotes go through the full parse; a ragged record is an error.
        keys[40] = "\"\(keys[40])\""
        var lines = keys.map { "\($0),x\n" }
        lines[100] = "\"CT40 9\"\"Q\",x\r\n"
        lines.insert("CT35 1ZZ\n", at: 200)
        directory.write("in.csv", "postcode,value\n" + lines.joined())
        let reader = try CSVReader(path: directory.path("in.csv"), bufferSize: bufferSize)
        let (start, key) = try Self.readToFirstDescent(reader)
        #expect(start.line == 2 + 9 * 3, "CT10 1AA follows CT9 2AA")
        let runs = try #require(SortedRuns.scan(reader, descent: start, key: key, field: 0, type: .string))
        // One run per area for CT1–9, then per area from 10 up (taking the next area's 1–9), and the
        // two records out of place start runs of their own.
        #expect(runs.runs.count >= 6 && runs.runs.count <= 10, "\(runs.runs.map(\.line))")
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.path("in.csv")))
        #expect(reader.sha256 == SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())

        let merged = MergedRuns(runs, of: reader, field: 0, type: .string, bufferSize: bufferSize)
        var out: [String] = []
        var seenLines = Set<Int>()
        var errors: [(line: Int, bytes: String)] = []
        while true {
            do {
                guard let record = try merged.next() else { break }
                out.append(record.string(0))
                #expect(seenLines.insert(record.line).inserted)
            } catch {
                guard error.isRecoverable else { throw error }
                errors.append((error.line, String(decoding: merged.lastRecordBytes, as: UTF8.self)))
            }
        }
        #expect(errors.count == 1 && errors.first?.line == 202 && errors.first?.bytes == "CT35 1ZZ", "\(errors)")
        var expected = keys.map { $0.replacingOccurrences(of: "\"", with: "") }
        expected[100] = "CT40 9\"Q"
        #expect(out == Self.byteOrder(expected))
        #expect(seenLines.count == keys.count)
    }

    /// The scan stops when the inserting thread has failed, instead of reading on to the file's end;
    /// asked every 65,536 records.
    @Test func theScanStopsOnceTheLoadIsCancelled() throws {
        let directory = TemporaryDirectory()
        let keys = Self.naturalKeys(
            areas: (0..<60).map { "A" + String(UnicodeScalar(UInt8(65 + $0 % 26))) + String($0 / 26) }, districts: 400)
        directory.write("in.csv", "postcode\n" + keys.map { $0 + "\n" }.joined())
        func scan(cancelled: Bool) throws -> SortedRuns? {
            let reader = try CSVReader(path: directory.path("in.csv"))
            let (start, key) = try Self.readToFirstDescent(reader)
            var asked = 0
            let runs = SortedRuns.scan(reader, descent: start, key: key, field: 0, type: .string) {
                asked += 1
                return cancelled
            }
            #expect(cancelled ? asked == 1 : asked == keys.count / 65_536)
            return runs
        }
        #expect(keys.count > 65_536)
        #expect(try scan(cancelled: false) != nil)
        #expect(try scan(cancelled: true) == nil)
    }

    /// A keyed table's natural-order file (or a shuffled one, too many runs to merge, read again in
    /// file order) gives the table and digest of its sorted rows; rows before the first descent go
    /// in twice but are rejected once; a duplicate across runs names the earlier line; the file's
    /// checksum is the whole file's.
    @Test(arguments: ["natural", "shuffled"])
    func aKeyedFileReadAgainGivesTheSortedTableAndEachRejectOnce(order: String) throws {
        var keys = Self.naturalKeys()
        if order == "shuffled" {
            var state: UInt64 = 7
            for index in stride(from: keys.count - 1, to: 0, by: -1) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                keys.swapAt(index, Int((state >> 33) % UInt64(index + 1)))
            }
            keys = Array(keys.prefix(3)) + Self.byteOrder(Array(keys.dropFirst(3))).reversed()
        }
        // Long enough rows that the file outgrows the reader's first read, so its hash is finished
        // on a thread of its own.
        let country = String(repeating: "E", count: 2_500)
        var rows = keys.map { "\($0),KEN,51.5,\(country)\n" }
        rows[4] = "\(keys[4]),KEN,north,\(country)\n" // bad value before the first descent (line 6)
        rows[300] = "\(keys[300]),KEN,51.5\n" // ragged, in a later run (line 302)
        let duplicate = keys[10]
        rows.insert("\(duplicate),KEN,50.1,\(country)\n", at: 450) // line 452
        let header = "postcode,county_code,latitude,country_code\n"
        let directory = TemporaryDirectory()
        writeTestInputs(directory, postcodes: header + rows.joined())
        let built = try buildTestStore(directory, maxRejects: 3) { $0.format = .plain }
        #expect(built.rejected == 3, "\(built.shownRejects)")
        #expect(Set(built.shownRejects.map(\.line)) == [6, 302, 452], "\(built.shownRejects)")
        let duplicateReject = built.shownRejects.first { $0.line == 452 }
        #expect(
            duplicateReject?.reason.contains("line \(keys.firstIndex(of: duplicate)! + 2) has it already") == true,
            "\(String(describing: duplicateReject))")
        #expect(built.rowCounts["Postcode"] == keys.count - 2)
        let rejectsFile = try String(contentsOfFile: directory.path("out/postcodes.rejects.csv"), encoding: .utf8)
        #expect(rejectsFile.split(separator: "\n").count == 4, "\(rejectsFile)")

        let good = rows.enumerated().filter { ![4, 300, 450].contains($0.offset) }.map(\.element)
        let sortedDirectory = TemporaryDirectory()
        writeTestInputs(sortedDirectory, postcodes: header + Self.byteOrder(good).joined())
        let sorted = try buildTestStore(sortedDirectory) { $0.format = .plain }
        #expect(built.metadata.contentDigest == sorted.metadata.contentDigest)
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))

        let data = try Data(contentsOf: URL(fileURLWithPath: directory.path("in/postcodes.csv")))
        #expect(data.count > 1 << 20)
        let source = try #require(built.sources.first { $0.entity == "Postcode" })
        #expect(source.sha256 == SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())
        #expect(source.bytes == data.count && source.rowsRead == rows.count)
    }

    /// A structural error after the first descent stops the scan; the file is read again in order,
    /// which reports it in its place, as without the merge.
    @Test func anUnterminatedQuoteAfterTheFirstDescentIsReportedInItsPlace() throws {
        var rows = Self.naturalKeys().map { "\($0),KEN,51.5\n" }
        rows[2] = "CT1 2AA,KEN,west\n"
        rows[500] = "CT40 1AA,\"KEN,51.5\n"
        let directory = TemporaryDirectory()
        writeTestInputs(directory, postcodes: "postcode,county_code,latitude\n" + rows.joined())
        let error = #expect(throws: IngestError.self) { try buildTestStore(directory, maxRejects: 10) { $0.format = .plain } }
        #expect(error?.description.contains("502") == true && error?.description.contains("quote") == true, "\(String(describing: error))")
    }
}
