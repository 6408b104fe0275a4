import Crypto
import Foundation
import SeedPipeline
import SeedStore
import Testing

/// Runs a shell command and returns its status and standard output.
@discardableResult
func shell(_ command: String) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

@Suite("Parallel gzip and the bounded inflater")
struct ParallelGzipTests {
    private let directory = TemporaryDirectory()

    private func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = directory.path(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    private static func sample(_ count: Int, compressible: Bool) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        if !compressible { return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let words = Array("postcode county district ward latitude longitude ".utf8)
        return (0..<count).map { index in index % 97 == 0 ? UInt8.random(in: 48...57, using: &generator) : words[index % words.count] }
    }

    @Test(arguments: [0, 1, ParallelGzip.blockSize, ParallelGzip.blockSize + 1, 3 * ParallelGzip.blockSize + 17, 1_500_000])
    func roundTripsThroughGzipAndTheInflater(size: Int) throws {
        for compressible in [true, false] {
            let input = Self.sample(size, compressible: compressible)
            let source = write("in-\(size)-\(compressible)", input)
            let result = try ParallelGzip(level: 6, threads: 2).compress(source, to: source + ".gz")
            #expect(result.inputBytes == Int64(size))
            #expect(result.inputSHA256 == Data(SHA256.hash(data: input)).hexString)
            let compressed = try Data(contentsOf: URL(fileURLWithPath: source + ".gz"))
            #expect(result.outputBytes == Int64(compressed.count))
            #expect(result.outputSHA256 == Data(SHA256.hash(data: compressed)).hexString)
            #expect(Array(compressed.prefix(10)) == [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF], "no time, no name")

            #expect(try shell("gzip -t '\(source).gz'").status == 0)
            let unzipped = try shell("gzip -dc '\(source).gz'").output
            #expect(Array(unzipped) == input)

            var hasher = SHA256()
            let written = try GzipInflater.inflate(source + ".gz", to: source + ".out", maxOutputBytes: Int64(size)) { hasher.update(bufferPointer: $0) }
            #expect(written == Int64(size))
            #expect(try Data(contentsOf: URL(fileURLWithPath: source + ".out")) == Data(input))
            #expect(Data(hasher.finalize()).hexString == result.inputSHA256)
        }
    }

    @Test func sameBytesWhateverTheThreadsAndRuns() throws {
        let source = write("store", Self.sample(2_000_000, compressible: true))
        var outputs: [Data] = []
        for threads in [1, 2, 4, 2] {
            _ = try ParallelGzip(level: 6, threads: threads).compress(source, to: source + ".\(threads).gz")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: source + ".\(threads).gz")))
        }
        #expect(Set(outputs).count == 1)
        _ = try ParallelGzip(level: 1, threads: 2).compress(source, to: source + ".fast.gz")
        let fast = try Data(contentsOf: URL(fileURLWithPath: source + ".fast.gz"))
        #expect(fast[8] == 4 && fast != outputs[0], "level 1 marks the header's extra flags")
    }

    @Test func inflaterRefusesDamagedFiles() throws {
        let input = Self.sample(600_000, compressible: true)
        let source = write("good", input)
        _ = try ParallelGzip().compress(source, to: source + ".gz")
        let good = try Data(contentsOf: URL(fileURLWithPath: source + ".gz"))

        func kind(_ bytes: Data, limit: Int64? = nil) -> GzipError.Kind? {
            let path = write("damaged-\(UUID().uuidString)", Array(bytes))
            do {
                try GzipInflater.inflate(path, to: path + ".out", maxOutputBytes: limit)
                return nil
            } catch {
                return error.kind
            }
        }
        var flipped = good
        flipped[good.count - 6] ^= 0x01
        #expect(kind(flipped) == .checksumMismatch)
        var middle = good
        middle[good.count / 2] ^= 0xFF
        #expect(kind(middle) != nil)
        #expect(kind(good.prefix(good.count - 100)) == .truncated(at: Int64(good.count - 100)))
        #expect(kind(good + Data([1, 2, 3])) == .trailingData)
        #expect(kind(good + good) == .trailingData, "one member only")
        #expect(kind(good, limit: 1000) == .tooLarge(limit: 1000))
        #expect(kind(Data("plain text".utf8)) == .notGzip)
        #expect(kind(Data()) == .truncated(at: 0))
        #expect(kind(good, limit: Int64(input.count)) == nil)
    }
}
