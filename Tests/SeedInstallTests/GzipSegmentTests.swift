import CZlib
import Crypto
import Foundation
import SeedModel
import SeedPipeline
import SeedTestSupport
import Testing

@testable import SeedInstall

/// The artifact's independent segments: each starts with no reference to what comes before, the
/// table lists where, and an inflater given it on any number of threads gives the same bytes or
/// refuses a table that does not fit — never a wrong store.
@Suite("Gzip segments inflated on every core")
struct GzipSegmentTests {
    private let directory = TemporaryDirectory()
    private static let segment = Int(GzipSegments.minimumBytes)

    private func sample(_ count: Int, compressible: Bool, seed: UInt64 = 1) -> [UInt8] {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        if !compressible { return (0..<count).map { _ in next() } }
        let words = Array("postcode county district ward latitude longitude ".utf8)
        return (0..<count).map { index in index % 89 == 0 ? 48 + next() % 10 : words[(index / 7) % words.count] }
    }

    private func compressed(_ name: String, _ input: [UInt8]) throws -> (String, GzipResult) {
        let path = directory.path(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(input))
        return (path + ".gz", try ParallelGzip(level: 6, threads: 2).compress(path, to: path + ".gz"))
    }

    /// Inflates `bytes` as raw deflate with no dictionary, stopping when the input is used up.
    private func rawInflate(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var stream = z_stream()
        guard czlib_inflateInit2(&stream, -15) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = Array(bytes)
        var output = [UInt8](repeating: 0, count: Self.segment + 1024)
        let code = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return CZlib.inflate(&stream, Z_SYNC_FLUSH)
            }
        }
        guard code == Z_OK || code == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }

    @Test(arguments: [0, 1, segment - 1, segment, segment + 1, 3 * segment + 12_345])
    func segmentsStandAloneAndInflateTheSameOnAnyNumberOfThreads(size: Int) throws {
        for compressible in [true, false] {
            let input = sample(size, compressible: compressible)
            let (artifact, result) = try compressed("in-\(size)-\(compressible)", input)
            let segments = result.segments
            #expect(segments.bytes == GzipSegments.minimumBytes)
            #expect(segments.offsets.count == max(1, (size + Self.segment - 1) / Self.segment))
            #expect(segments.problem(inputBytes: result.outputBytes, outputBytes: result.inputBytes) == nil)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: artifact)))
            #expect(try shell("gzip -t '\(artifact)'").status == 0, "still one standard gzip member")
            // Every segment but the last inflates on its own, with nothing before it, to its slice.
            for (index, start) in segments.offsets.enumerated().dropLast() {
                let slice = bytes[Int(start)..<Int(segments.offsets[index + 1])]
                let alone = rawInflate(slice).map { Data($0) }
                #expect(alone == Data(input[(index * Self.segment)..<((index + 1) * Self.segment)]), "segment \(index)")
            }
            for threads in [1, 2, 3, 8] {
                let input32 = open(artifact, O_RDONLY)
                let outputPath = artifact + ".out-\(threads)"
                let output32 = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                defer {
                    close(input32)
                    close(output32)
                }
                var hasher = SHA256()
                let (written, read) = try GzipInflater.inflate(
                    segments: segments, input: input32, path: artifact, inputBytes: result.outputBytes, outputBytes: Int64(size),
                    to: output32, outputPath: outputPath, hashInput: true, threads: threads
                ) { hasher.update(bufferPointer: $0) }
                #expect(written == Int64(size))
                #expect(Data(hasher.finalize()).hexString == result.inputSHA256)
                #expect(read == FileDigest(bytes: result.outputBytes, sha256: result.outputSHA256))
                #expect(try Data(contentsOf: URL(fileURLWithPath: outputPath)) == Data(input))
            }
            // The trailer's CRC-32 damaged: refused, unless the caller checks SHA-256s instead (a fetch).
            var damaged = Array(try Data(contentsOf: URL(fileURLWithPath: artifact)))
            damaged[damaged.count - 6] ^= 0x01
            let damagedPath = artifact + ".crc"
            try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
            for checksCRC in [true, false] {
                let input32 = open(damagedPath, O_RDONLY)
                let output32 = open(damagedPath + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                defer {
                    close(input32)
                    close(output32)
                }
                let outcome = Result { () throws(GzipError) in
                    try GzipInflater.inflate(
                        segments: segments, input: input32, path: damagedPath, inputBytes: result.outputBytes, outputBytes: Int64(size),
                        to: output32, outputPath: damagedPath + ".out", hashInput: false, checksCRC: checksCRC, observe: nil
                    ).written
                }
                switch outcome {
                case .success(let written): #expect(!checksCRC && written == Int64(size), "size \(size)")
                case .failure(let error): #expect(checksCRC && error.kind == .checksumMismatch, "size \(size): \(error)")
                }
            }
        }
    }

    @Test func aTableThatDoesNotFitItsArtifactIsRefused() throws {
        let size = 3 * Self.segment + 4_000
        let input = sample(size, compressible: true)
        let (artifact, result) = try compressed("good", input)
        let good = result.segments
        func outcome(_ table: GzipSegments, file: String? = nil, outputBytes: Int64? = nil) -> String {
            do {
                try GzipInflater.inflate(
                    file ?? artifact, to: directory.path("out"), maxOutputBytes: outputBytes ?? Int64(size), segments: table)
                return "inflated"
            } catch {
                return error.description
            }
        }
        #expect(outcome(good) == "inflated")
        var shifted = good
        shifted.offsets[2] += 1
        #expect(outcome(shifted).contains("segment 1 of 4, from byte \(good.offsets[1])"), "\(outcome(shifted))")
        shifted.offsets[2] -= 2
        #expect(outcome(shifted).contains("corrupt gzip data (segment "), "\(outcome(shifted))")
        var swapped = good
        swapped.offsets.swapAt(1, 2)
        #expect(outcome(swapped).contains("the segment table does not fit the file: segment 1 from byte"), "\(outcome(swapped))")
        var short = good
        short.offsets.removeLast()
        #expect(outcome(short).contains("3 segments for \(size) bytes in segments of \(Self.segment), not 4"))
        var larger = good
        larger.bytes *= 2
        #expect(outcome(larger).contains("not 2"))
        // A stated segment size a reader would have to hold three of is refused before any allocation.
        let huge = GzipSegments(bytes: 1 << 30, offsets: [10])
        #expect(outcome(huge).contains("the segment table does not fit the file: a segment size of 1073741824 bytes"))
        // Stated sizes that would overflow or are negative are refused, not trapped on.
        #expect(outcome(good, outputBytes: .max).contains("segments for \(Int64.max) bytes"), "\(outcome(good, outputBytes: .max))")
        #expect(outcome(good, outputBytes: -1).contains("a stated size of -1 bytes"))
        #expect(GzipSegments.segmentBytes(forInput: 10 << 30, blockSize: ParallelGzip.blockSize) == 8 << 20, "at most 2,048 segments")
        #expect(GzipSegments.segmentBytes(forInput: 1 << 40, blockSize: ParallelGzip.blockSize) == GzipSegments.maximumBytes)
        // The stated size one byte short: the last segment would write more than it.
        #expect(
            outcome(good, outputBytes: Int64(size) - 1).contains("more than \(size - 1) bytes"),
            "\(outcome(good, outputBytes: Int64(size) - 1))")

        // Another artifact of the same size with this table; and this artifact damaged in segment 2.
        let (other, _) = try compressed("other", sample(size, compressible: true, seed: 2).map { $0 == 0x20 ? 0x2C : $0 })
        #expect(outcome(good, file: other) != "inflated")
        var damaged = Array(try Data(contentsOf: URL(fileURLWithPath: artifact)))
        damaged[Int(good.offsets[2]) + 200] ^= 0x10
        let damagedPath = directory.path("damaged.gz")
        _ = FileManager.default.createFile(atPath: damagedPath, contents: Data(damaged))
        #expect(outcome(good, file: damagedPath) != "inflated")
        // gzip's own output is one stream with history throughout: any table into it is refused.
        let gzipPath = directory.path("gzip6.gz")
        #expect(try shell("gzip -6 -c '\(directory.path("good"))' > '\(gzipPath)'").status == 0)
        let gzipBytes = Int64(try Data(contentsOf: URL(fileURLWithPath: gzipPath)).count)
        let made = GzipSegments(bytes: good.bytes, offsets: [10] + (1..<4).map { 10 + gzipBytes * Int64($0) / 4 })
        #expect(outcome(made, file: gzipPath) != "inflated")
    }

    @Test func anInstallUsesTheTableRefusesAWrongOneAndInstallsWithout() throws {
        var csv = "postcode,county_code,latitude,active,introduced,country_code\n"
        for index in 0..<90_000 { csv += "P\(1_000_000 + index),\(index % 3 == 0 ? "KEN" : "EDI"),51.\(index % 1000),yes,,E92000001\n" }
        let out = try packagedRelease(directory, version: 7, postcodes: csv)
        _ = try Publisher().publish(out, to: directory.path("dist"))
        let channel = directory.path("dist/postcodes/1")
        let original = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: channel + "/manifests/7.json")), path: "m")
        let table = try #require(original.artifact?.segments)
        try #require(table.offsets.count >= 2, "a store of several segments: \(original.store?.bytes ?? 0) bytes")
        var installer = SeedInstaller()
        installer.now = { Date().addingTimeInterval(86_400) }
        installer.allowUnsigned = true

        func rewrite(_ segments: JSONValue?) throws {
            try rewriteManifest(in: channel, version: 7) { values, _ in
                var artifact = values["artifact"]!.objectValue!
                artifact["segments"] = segments
                values["artifact"] = .object(artifact)
            }
        }
        // A table whose second segment starts a byte late: refused, nothing installed, no file left.
        var wrong = table
        wrong.offsets[1] += 1
        try rewrite(wrong.jsonValue)
        let refused = #expect(throws: InstallError.self) { try installer.install(from: channel, to: directory.path("app")) }
        #expect(
            refused?.kind == .checksum && refused?.message.contains("segment 0 of \(table.offsets.count)") == true,
            "\(String(describing: refused))")
        #expect(try installedFiles(directory.path("app")).isEmpty)

        // A manifest from before the table (or with one that cannot describe the file): one pass.
        for segments: JSONValue? in [nil, .object(["bytes": .integer(1 << 20), "offsets": .array([.integer(10)])])] {
            try rewrite(segments)
            let app = directory.path("app-\(segments == nil ? "none" : "unusable")")
            let installed = try installer.install(from: channel, to: app)
            #expect(installed.outcome == .installed)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: installed.storePath))
                    == Data(contentsOf: URL(fileURLWithPath: out + "/postcodes.sqlite")))
        }
        try rewrite(table.jsonValue)
        let installed = try installer.install(from: channel, to: directory.path("app"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: installed.storePath))
                == Data(contentsOf: URL(fileURLWithPath: out + "/postcodes.sqlite")))

        // `verify` (the nightly job's step before publishing) refuses a table that does not fit.
        let model = try ModelLoader.load(directory.path("model.json"))
        #expect(try Verifier().verify(out + "/manifest.json", seedModels: [model], userModels: []).passed)
        for (index, broken) in [wrong, GzipSegments(bytes: table.bytes, offsets: Array(table.offsets.dropLast()))].enumerated() {
            var manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")), path: "m")
            var artifact = manifest.values["artifact"]!.objectValue!
            artifact["segments"] = broken.jsonValue
            manifest.values["artifact"] = .object(artifact)
            let path = out + "/manifest-\(index).json"
            try manifest.fileData.write(to: URL(fileURLWithPath: path))
            let report = try Verifier().verify(path, seedModels: [model], userModels: [])
            let inflate = report.checks.first { $0.name == "inflate" }
            #expect(!report.passed && inflate?.passed == false, "\(report.text)")
            #expect(
                inflate?.detail.contains(index == 0 ? "segment 0 of" : "the segment table does not fit the file") == true, "\(report.text)")
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: installed.storePath))
                == Data(contentsOf: URL(fileURLWithPath: out + "/postcodes.sqlite")))
    }
}
