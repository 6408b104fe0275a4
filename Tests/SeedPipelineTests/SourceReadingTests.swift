import Crypto
import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

/// The source checksum describes exactly the bytes loaded; pipes work; a file that changes while it
/// is read fails the build naming it.
@Suite("Reading sources once")
struct SourceReadingTests {
    private let directory = TemporaryDirectory()

    private func sha256(_ text: String) -> String {
        Data(SHA256.hash(data: Data(text.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    @Test func theChecksumIsHashedFromTheBytesRead() throws {
        let text = "postcode,county_code\nCT1 1AA,KEN\nCT1 1AB,KEN\n"
        let path = directory.write("p.csv", text)
        let reader = try CSVReader(path: path, bufferSize: 16)
        #expect(reader.sha256 == nil, "not before the end")
        while try reader.next() != nil {}
        #expect(reader.sha256 == sha256(text) && reader.bytesRead == text.utf8.count)
    }

    @Test(arguments: ["append", "truncate", "rewrite"])
    func aFileThatChangesWhileReadIsRefused(change: String) throws {
        let text = "postcode,county_code\nCT1 1AA,KEN\nCT1 1AB,KEN\nCT1 1AC,KEN\n"
        let path = directory.write("p.csv", text)
        let reader = try CSVReader(path: path)
        // The reader holds the file open; another program now changes it.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        switch change {
        case "append":
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("CT1 1AD,KEN\n".utf8))
        case "truncate":
            try handle.truncate(atOffset: 30)
        default:
            Thread.sleep(forTimeInterval: 0.01)
            try handle.write(contentsOf: Data("POSTCODE".utf8))
        }
        try handle.close()
        let error = #expect(throws: CSVError.self) { while try reader.next() != nil {} }
        #expect(error?.description.contains("p.csv") == true)
        #expect(error?.description.contains("the file changed while it was read") == true, "\(String(describing: error))")
        #expect(IngestError(try #require(error)).kind == .inputChanged)
    }

    @Test func readFaultsKeepTheirSysexitsKinds() throws {
        // Not openable (missing, no permission): missing input, 66; a read error: I/O, 74.
        let missing = #expect(throws: CSVError.self) { try CSVReader(path: directory.path("nope.csv")) }
        #expect(IngestError(try #require(missing)).kind == .missingInput)
        try FileManager.default.createDirectory(atPath: directory.path("folder.csv"), withIntermediateDirectories: true)
        let folder = #expect(throws: CSVError.self) { try CSVReader(path: directory.path("folder.csv")) }
        #expect(IngestError(try #require(folder)).kind == .ioFailure)
        #expect(IngestError(try #require(folder)).description.contains("folder.csv"))
    }

    @Test func aBuildReadsFIFOsAndRecordsWhatItRead() throws {
        writeTestInputs(directory)
        let postcodes = try String(contentsOfFile: directory.path("in/postcodes.csv"), encoding: .utf8)
        let counties = try String(contentsOfFile: directory.path("in/counties.csv"), encoding: .utf8)
        for (name, text) in [("postcodes", postcodes), ("counties", counties)] {
            let fifo = directory.path("pipes/\(name).csv")
            try FileManager.default.createDirectory(atPath: directory.path("pipes"), withIntermediateDirectories: true)
            #expect(mkfifo(fifo, 0o600) == 0)
            Thread {
                let handle = FileHandle(forWritingAtPath: fifo)
                handle?.write(Data(text.utf8))
                try? handle?.close()
            }.start()
        }
        let built = try buildTestStore(directory) { $0.files = [directory.path("pipes/postcodes.csv")] }
        #expect(built.rowCounts == ["County": 2, "Postcode": 3])
        let source = try #require(built.sources.first { $0.entity == "Postcode" })
        #expect(source.sha256 == sha256(postcodes) && source.bytes == postcodes.utf8.count)
        #expect(built.sources.first { $0.entity == "County" }?.sha256 == sha256(counties))
    }
}

extension SourceReadingTests {
    /// A pipe cannot be read twice, so Core Data's layout keeps the key's index as rows go in
    /// (instead of building it after the load and reading the file again if that finds a
    /// duplicate): the duplicate out of order is still rejected, at its line.
    @Test func aDuplicateKeyOutOfOrderFromAFIFOIsRejectedInOneRead() throws {
        writeTestInputs(directory)
        let fifo = directory.path("pipes/postcodes.csv")
        try FileManager.default.createDirectory(atPath: directory.path("pipes"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: directory.path("in/counties.csv"), toPath: directory.path("pipes/counties.csv"))
        #expect(mkfifo(fifo, 0o600) == 0)
        let text = "postcode,county_code\nCT1 1AB,KEN\nCT1 1AC,KEN\nCT1 1AA,EDI\nCT1 1AB,EDI\n"
        Thread {
            let handle = FileHandle(forWritingAtPath: fifo)
            handle?.write(Data(text.utf8))
            try? handle?.close()
        }.start()
        let built = try buildTestStore(directory, maxRejects: 1) {
            $0.files = [fifo]
            $0.format = .coreData
        }
        #expect(built.rowCounts["Postcode"] == 3 && built.rejected == 1)
        #expect(
            built.shownRejects.first?.description.contains(
                "postcodes.csv:5:1 (field \"postcode\"): duplicate Postcode.postcode: an earlier row has it already") == true,
            "\(built.shownRejects.map(\.description))")
        #expect(!built.warnings.contains { $0.contains("read a second time") })
        #expect(!built.timings.phases.contains { $0.name == "key index Postcode" })
    }

    /// A second read loads every file again, not only the one with the duplicate: with the counties
    /// from a FIFO (read before the postcodes that refer to them), the postcodes from a regular file
    /// keep their index as rows go in too, and the build reads each file once.
    @Test func aDuplicateKeyOutOfOrderBesideAFIFOIsRejectedInOneRead() throws {
        writeTestInputs(directory)
        let counties = try String(contentsOfFile: directory.path("in/counties.csv"), encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory.path("mixed"), withIntermediateDirectories: true)
        let postcodes = directory.write("mixed/postcodes.csv", "postcode,county_code\nCT1 1AB,KEN\nCT1 1AC,KEN\nCT1 1AA,EDI\nCT1 1AB,EDI\n")
        let fifo = directory.path("mixed/counties.csv")
        #expect(mkfifo(fifo, 0o600) == 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let handle = FileHandle(forWritingAtPath: fifo)
            handle?.write(Data(counties.utf8))
            try? handle?.close()
            // Had the build opened the FIFO again, it would wait for a writer for ever: after a
            // minute, an empty one comes, so the build fails instead of hanging the test run.
            if finished.wait(timeout: .now() + 60) == .timedOut {
                let late = open(fifo, O_WRONLY | O_NONBLOCK)
                if late >= 0 { close(late) }
            }
        }.start()
        defer { finished.signal() }
        let built = try buildTestStore(directory, maxRejects: 1) {
            $0.files = [postcodes]
            $0.format = .coreData
        }
        #expect(built.rowCounts == ["County": 2, "Postcode": 3] && built.rejected == 1)
        #expect(
            built.shownRejects.first?.description.contains("postcodes.csv:5:1 (field \"postcode\"): duplicate Postcode.postcode") == true,
            "\(built.shownRejects.map(\.description))")
        #expect(!built.warnings.contains { $0.contains("read a second time") })
    }
}

/// A record longer than the limit is a rejected row; memory stays at the limit.
@Suite("Over-long records")
struct LongRecordTests {
    private let directory = TemporaryDirectory()

    @Test func aLongRecordIsRejectedAndTheReaderGoesOn() throws {
        let long = String(repeating: "x", count: 5_000)
        let text = "postcode,county_code\nCT1 1AA,KEN\n\(long),KEN\n\"CT1\n\(long)\",KEN\nCT1 1AB,KEN\n"
        let path = directory.write("p.csv", text)
        let reader = try CSVReader(path: path, bufferSize: 64, maxRecordBytes: 1_024)
        var lines: [Int] = []
        var rejected: [(Int, Int)] = []
        while true {
            let next = Result { () throws(CSVError) in try reader.next()?.line }
            switch next {
            case .success(let line?): lines.append(line)
            case .success(nil): break
            case .failure(let error):
                #expect(error.kind == .recordTooLong(limit: 1_024))
                rejected.append((error.line, reader.lastRecordBytes.count))
                continue
            }
            if case .success(nil) = next { break }
        }
        #expect(lines == [2, 6], "the rows around the long ones load, with their right line numbers")
        #expect(rejected.map(\.0) == [3, 4], "a quoted field spanning lines is one record")
        #expect(rejected.allSatisfy { $0.1 <= 1_024 }, "only a prefix is kept")
        #expect(reader.sha256 != nil && reader.bytesRead == text.utf8.count)
    }

    @Test func aStrayQuoteThatNeverClosesStaysAStructuralError() throws {
        let body = (0..<200).map { "CT\($0) 1AA,KEN" }.joined(separator: "\n")
        let path = directory.write("p.csv", "postcode,county_code\nCT0 0AA,KEN\n\"CT1,KEN\n\(body)\n")
        let reader = try CSVReader(path: path, bufferSize: 64, maxRecordBytes: 256)
        _ = try reader.next()
        let error = #expect(throws: CSVError.self) { while try reader.next() != nil {} }
        #expect(error?.kind == .unterminatedQuote && error?.line == 3)
    }

    @Test func theBuildRejectsItAndKeepsAPrefixInTheRejectsFile() throws {
        let long = String(repeating: "y", count: 100_000)
        writeTestInputs(directory, postcodes: "postcode,county_code\nCT1 1AA,KEN\nCT1 1AB\(long),KEN\nCT1 1AC,KEN\n")
        let built = try buildTestStore(directory, maxRejects: 1) { $0.maxRecordBytes = 10_000 }
        #expect(built.rowCounts["Postcode"] == 2 && built.rejected == 1)
        let rejects = try String(contentsOfFile: try #require(built.rejectsPath), encoding: .utf8)
        #expect(rejects.contains("longer than 10000 bytes"))
        #expect(rejects.utf8.count < 6_000, "a prefix, not the 100 kB record: \(rejects.utf8.count)")
    }
}
