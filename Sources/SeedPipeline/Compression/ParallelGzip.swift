import CZlib
import Crypto
import Foundation
import SeedStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What compressing a file produced, with both files' sizes and SHA-256s from the same pass.
public struct GzipResult: Sendable, Equatable {
    public var inputBytes: Int64
    public var outputBytes: Int64
    public var inputSHA256: String
    public var outputSHA256: String
}

/// Compresses a file to one standard gzip member on all cores, the way `pigz` does.
///
/// The input is cut into 128 KiB blocks deflated independently, each primed with the 32 KiB of
/// input before it as its dictionary (so the ratio stays that of one stream) and ended with a sync
/// flush so the pieces join byte-aligned; the last block finishes the stream. The CRC-32s of the
/// blocks are combined with `crc32_combine`. The header carries no time and no file name, and the
/// output depends only on the input and level, never on the number of threads, so the same store
/// always gives the same bytes. Memory is bounded by `threads × 4` blocks in flight.
public struct ParallelGzip: Sendable {
    public static let blockSize = 128 * 1024
    static let window = 32 * 1024

    public var level: Int32
    public var threads: Int

    public init(level: Int32 = 6, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.level = min(max(level, 1), 9)
        self.threads = max(threads, 1)
    }

    /// Compresses `source` into `destination` (created or truncated).
    /// - Parameter progress: called after each round with the input bytes done.
    public func compress(
        _ source: String, to destination: String, progress: ((Int64, Int64) -> Void)? = nil
    ) throws(GzipError) -> GzipResult {
        let input = open(source, O_RDONLY)
        guard input >= 0 else { throw GzipError(.io("cannot open: \(String(cString: strerror(errno)))"), path: source) }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0 else { throw GzipError(.io("cannot stat"), path: source) }
        let size = Int64(status.st_size)
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard output >= 0 else { throw GzipError(.io("cannot create: \(String(cString: strerror(errno)))"), path: destination) }
        defer { close(output) }

        var writer = HashingWriter(descriptor: output, path: destination)
        try writer.write(header)
        var inputHasher = SHA256()
        let roundCapacity = threads * 4 * Self.blockSize
        let round = UnsafeMutablePointer<UInt8>.allocate(capacity: roundCapacity)
        defer { round.deallocate() }
        var tail: [UInt8] = []
        var crc = crc32(0, nil, 0)
        var done: Int64 = 0
        repeat {
            let count = try readFully(input, into: round, capacity: roundCapacity, path: source)
            let bytes = UnsafeRawBufferPointer(start: round, count: count)
            inputHasher.update(bufferPointer: bytes)
            let isLastRound = done + Int64(count) >= size || count < roundCapacity
            let blocks = try compressRound(bytes, dictionary: tail, finish: isLastRound, path: source)
            for block in blocks {
                crc = crc32_combine(crc, block.crc, Int(block.length))
                try writer.write(block.output)
            }
            tail = Array((tail + Array(bytes.suffix(Self.window))).suffix(Self.window))
            done += Int64(count)
            progress?(done, size)
            if isLastRound { break }
        } while true
        var trailer = [UInt8]()
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: crc).littleEndian) { trailer += $0 }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: done).littleEndian) { trailer += $0 }
        try writer.write(trailer)
        return GzipResult(
            inputBytes: done, outputBytes: writer.count,
            inputSHA256: Data(inputHasher.finalize()).hexString, outputSHA256: Data(writer.hasher.finalize()).hexString)
    }

    /// The fixed 10-byte gzip header: no flags, modification time 0, extra flags per level, OS 255 (unknown).
    var header: [UInt8] {
        let extra: UInt8 = level == 9 ? 2 : level == 1 ? 4 : 0
        return [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, extra, 0xFF]
    }

    private func readFully(_ descriptor: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, path: String) throws(GzipError) -> Int {
        var count = 0
        while count < capacity {
            let got = read(descriptor, buffer + count, capacity - count)
            if got < 0 {
                if errno == EINTR { continue }
                throw GzipError(.io("cannot read: \(String(cString: strerror(errno)))"), path: path)
            }
            if got == 0 { break }
            count += got
        }
        return count
    }
}

/// Writes to a file descriptor, counting and hashing what it writes.
struct HashingWriter {
    let descriptor: Int32
    let path: String
    var hasher = SHA256()
    var count: Int64 = 0

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    mutating func write(_ bytes: [UInt8]) throws(GzipError) {
        hasher.update(data: bytes)
        count += Int64(bytes.count)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(GzipError) in try GzipInflater.writeAll(descriptor, buffer, path: path) }
        }
        try result.get()
    }
}
