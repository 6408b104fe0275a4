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
    /// Where the output's independent segments start (for inflating on several cores).
    package var segments: GzipSegments
}

/// Compresses a file to one standard gzip member on all cores, the way `pigz` does.
///
/// The input is cut into 512 KiB blocks deflated independently, each primed with the 32 KiB of
/// input before it as its dictionary (so the ratio stays that of one stream) and ended with a sync
/// flush so the pieces join byte-aligned; the last block finishes the stream. The CRC-32s of the
/// blocks are combined with `crc32_combine`. Every ``GzipSegments`` size (2 MiB, more for inputs
/// over 4 GiB) a block starts without a dictionary instead: from there the stream refers to nothing
/// before, so a reader given the offsets (``GzipResult/segments``, kept in the manifest) inflates the
/// segments on several cores; it costs 0.03% in size. The header carries no time and no file name, and the
/// output depends only on the input and level, never on the number of threads, so the same store
/// always gives the same bytes. One thread per core deflates, each reusing one zlib stream, while
/// the calling thread reads, hashes and writes in order; memory is bounded by `threads × 3` blocks
/// in flight.
public struct ParallelGzip: Sendable {
    /// Priming each block with its dictionary costs about as much as deflating 32 KiB of it: 512 KiB
    /// blocks measured 7% less CPU than pigz's 128 KiB on a 371 MB store, and 0.06% smaller.
    public static let blockSize = 512 * 1024
    static let window = 32 * 1024

    /// zlib's match-search parameters (see `deflateTune`) used instead of the level's stock ones.
    struct Tuning {
        var goodLength: Int32, maxLazy: Int32, niceLength: Int32, maxChain: Int32
    }

    /// Level 6 searches SQLite pages differently from zlib's stock level 6 (good 8, lazy 16, nice 128,
    /// chain 128): a lazy match is tried for matches up to 32 bytes instead of 16, and always with a
    /// quarter of the chain (good length 3, the shortest match). Measured on Core Data and plain stores
    /// of 1M and 2.7M rows and on the `sqlite3` shell's store of the same rows: 0.6–0.9% smaller than
    /// stock level 6, and 9–18% less CPU (docs/performance.md). Other levels are zlib's own.
    static func tuning(level: Int32) -> Tuning? {
        level == 6 ? Tuning(goodLength: 3, maxLazy: 32, niceLength: 128, maxChain: 128) : nil
    }

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
        // Reading, hashing and writing here while the workers deflate the blocks read before: enough
        // slots in flight that every worker always has a block waiting.
        let workers = OrderedWorkers<Slot, GzipError>(slots: (0..<(threads * 3)).map { _ in Slot() }, threads: threads) { [level] in
            let deflater = BlockDeflater(level: level, path: source)
            return { (_, slot) throws(GzipError) in try deflater.deflate(slot) }
        }
        defer { workers.stop() }
        var previous: Slot?
        var crc = crc32(0, nil, 0)
        var done: Int64 = 0
        var submitted = 0
        var taken = 0
        var readAll = false
        var compressed: Int64 = 0
        var lastProgress: Int64 = 0
        let segmentBytes = GzipSegments.segmentBytes(forInput: size, blockSize: Self.blockSize)
        let segmentBlocks = Int(segmentBytes) / Self.blockSize
        var offsets: [Int64] = []
        while taken < submitted || !readAll {
            // Keep every slot busy: read and submit until all are in flight or the input ends.
            while !readAll, let slot = workers.vacantSlot {
                // The dictionary: the last 32 KiB of input before this block, unless a segment starts here.
                slot.dictionaryCount = 0
                if let previous, submitted % segmentBlocks != 0 {
                    let tail = min(Self.window, previous.dictionaryCount + previous.count)
                    let end = previous.input + previous.dictionaryCount + previous.count
                    slot.input.update(from: end - tail, count: tail)
                    slot.dictionaryCount = tail
                }
                slot.count = try readFully(input, into: slot.input + slot.dictionaryCount, capacity: Self.blockSize, path: source)
                inputHasher.update(bufferPointer: slot.block)
                done += Int64(slot.count)
                slot.isLast = slot.count < Self.blockSize || done >= size && !hasMore(input, path: source)
                readAll = slot.isLast
                workers.submit()
                submitted += 1
                previous = slot
            }
            let slot = try workers.take()
            taken += 1
            crc = crc32_combine(crc, slot.crc, Int(slot.count))
            if (taken - 1) % segmentBlocks == 0 { offsets.append(writer.count) }
            try writer.write(UnsafeRawBufferPointer(start: slot.output, count: slot.outputCount))
            compressed += Int64(slot.count)
            if compressed - lastProgress >= Int64(Self.blockSize * 8) || taken == submitted && readAll {
                lastProgress = compressed
                progress?(compressed, size)
            }
            workers.release()
        }
        var trailer = [UInt8]()
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: crc).littleEndian) { trailer += $0 }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: done).littleEndian) { trailer += $0 }
        try writer.write(trailer)
        return GzipResult(
            inputBytes: done, outputBytes: writer.count,
            inputSHA256: Data(inputHasher.finalize()).hexString, outputSHA256: Data(writer.hasher.finalize()).hexString,
            segments: GzipSegments(bytes: segmentBytes, offsets: offsets))
    }

    /// The fixed 10-byte gzip header: no flags, modification time 0, extra flags per level, OS 255 (unknown).
    var header: [UInt8] {
        let extra: UInt8 = level == 9 ? 2 : level == 1 ? 4 : 0
        return [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, extra, 0xFF]
    }

    /// Whether the file goes on past what `fstat` said (it grew): peeks one byte and steps back.
    private func hasMore(_ descriptor: Int32, path: String) -> Bool {
        var byte: UInt8 = 0
        guard read(descriptor, &byte, 1) == 1 else { return false }
        lseek(descriptor, -1, SEEK_CUR)
        return true
    }

    private func readFully(_ descriptor: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, path: String) throws(GzipError)
        -> Int
    {
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
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(GzipError) in try write(buffer) }
        }
        try result.get()
    }

    mutating func write(_ buffer: UnsafeRawBufferPointer) throws(GzipError) {
        hasher.update(bufferPointer: buffer)
        count += Int64(buffer.count)
        try GzipInflater.writeAll(descriptor, buffer, path: path)
    }
}
