import CZlib
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension GzipInflater {
    /// Chunks in flight: the caller's thread hashes and writes one while the inflating thread fills the next.
    static let depth = 4

    /// Inflates `input` in one pass on a thread of its own (an ``OrderedWorkers`` of one) into a ring
    /// of chunks, while the calling thread observes (hashes) and writes them in order: the two cores
    /// share the work of a fetch or a verify instead of taking turns.
    /// - Parameter hashInput: also hash the compressed bytes as they are read (an artifact read from where it lies).
    /// - Returns: the bytes written and, when asked, the size and SHA-256 of every compressed byte read.
    static func inflateInOrder(
        from input: Int32, path: String, limit: Int64?, hashInput: Bool = false, to output: Int32, outputPath: String,
        observe: ((UnsafeRawBufferPointer) -> Void)?
    ) throws(GzipError) -> (written: Int64, source: FileDigest?) {
        let chunks = (0..<depth).map { _ in Chunk() }
        let workers = OrderedWorkers<Chunk, GzipError>(slots: chunks, threads: 1) {
            let inflater = StreamInflater(input: input, path: path, limit: limit, hashInput: hashInput)
            return { (_, chunk) throws(GzipError) in try inflater.fill(chunk) }
        }
        defer { workers.stop() }
        var written: Int64 = 0
        while true {
            // Jobs past the end of the stream fill nothing; the loop stops at the chunk that ends it.
            while workers.vacantSlot != nil { workers.submit() }
            let chunk = try workers.take()
            let bytes = UnsafeRawBufferPointer(start: chunk.buffer, count: chunk.count)
            written += Int64(bytes.count)
            observe?(bytes)
            try writeAll(output, bytes, path: outputPath)
            let (isLast, source) = (chunk.isLast, chunk.inputDigest)
            workers.release()
            if isLast { return (written, source) }
        }
    }

    /// One chunk of inflated data; the one that ends the stream says so, with the input's digest when asked.
    final class Chunk {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: GzipInflater.chunkSize)
        var count = 0
        var isLast = false
        var inputDigest: FileDigest?

        deinit { buffer.deallocate() }
    }

    /// The inflating thread's state: one gzip stream read from `input`, each job filling the next chunk.
    private final class StreamInflater {
        private let input: Int32
        private let path: String
        private let limit: Int64?
        private let inBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: GzipInflater.chunkSize)
        /// At a fixed address, as zlib requires (its state points back at the stream).
        private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        private let initialised: Bool
        private var inputHasher: SHA256?
        private var inputBytes: Int64 = 0
        private var written: Int64 = 0
        private var first = true
        private var ended = false

        init(input: Int32, path: String, limit: Int64?, hashInput: Bool) {
            self.input = input
            self.path = path
            self.limit = limit
            inputHasher = hashInput ? SHA256() : nil
            stream.initialize(to: z_stream())
            // 16 + 15: a gzip wrapper only (no zlib or raw), 32 KiB window.
            initialised = czlib_inflateInit2(stream, 16 + 15) == Z_OK
        }

        deinit {
            if initialised { inflateEnd(stream) }
            stream.deallocate()
            inBuffer.deallocate()
        }

        /// Inflates into `chunk` until it is full or the stream ends (then checks nothing follows).
        func fill(_ chunk: Chunk) throws(GzipError) {
            chunk.count = 0
            chunk.inputDigest = nil
            chunk.isLast = ended
            guard !ended else { return }
            guard initialised else { throw GzipError(.zlib(code: Z_MEM_ERROR, message: "inflateInit2 failed"), path: path) }
            stream.pointee.next_out = chunk.buffer
            stream.pointee.avail_out = uInt(chunkSize)
            while true {
                if stream.pointee.avail_in == 0 {
                    let count = try readInput()
                    if count == 0 { throw GzipError(.truncated(at: inputBytes), path: path) }
                    if first {
                        guard count >= 2, inBuffer[0] == 0x1F, inBuffer[1] == 0x8B else { throw GzipError(.notGzip, path: path) }
                        first = false
                    }
                    stream.pointee.next_in = inBuffer
                    stream.pointee.avail_in = uInt(count)
                }
                let code = CZlib.inflate(stream, Z_NO_FLUSH)
                if code == Z_DATA_ERROR {
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "invalid data"
                    throw GzipError(message.contains("check") ? .checksumMismatch : .corrupt(message), path: path)
                }
                guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else {
                    throw GzipError(.zlib(code: code, message: stream.pointee.msg.map { String(cString: $0) } ?? ""), path: path)
                }
                let produced = chunkSize - Int(stream.pointee.avail_out)
                if let limit, written + Int64(produced) > limit { throw GzipError(.tooLarge(limit: limit), path: path) }
                if code == Z_STREAM_END {
                    let more = stream.pointee.avail_in > 0 ? 1 : try readInput()
                    if more > 0 { throw GzipError(.trailingData, path: path) }
                    ended = true
                    chunk.isLast = true
                    chunk.inputDigest = inputHasher.map { FileDigest(bytes: inputBytes, sha256: Data($0.finalize()).hexString) }
                }
                if ended || stream.pointee.avail_out == 0 {
                    chunk.count = produced
                    written += Int64(produced)
                    return
                }
            }
        }

        private func readInput() throws(GzipError) -> Int {
            let count = try readChunk(input, into: inBuffer, path: path)
            inputHasher?.update(bufferPointer: UnsafeRawBufferPointer(start: inBuffer, count: count))
            inputBytes += Int64(count)
            return count
        }
    }
}
