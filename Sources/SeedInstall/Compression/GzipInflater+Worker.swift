import CZlib
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GzipInflater {
    /// Inflates on a thread of its own into a ring of output buffers, so the caller's thread hashes
    /// and writes one chunk while the next is inflated: the two cores share the work of a fetch or
    /// a verify instead of taking turns.
    ///
    /// Safe to share: `counts`, `filled`, `taken`, `finished`, `cancelled`, `failure`, `running` and the input digest
    /// are written only under `condition`; a buffer belongs to the inflating thread until counted in `filled`, then to
    /// the caller until ``release()``.
    final class Worker: @unchecked Sendable {
        static let depth = 4

        private let input: Int32
        private let path: String
        private let limit: Int64?
        private let buffers: [UnsafeMutablePointer<UInt8>]
        private var counts = [Int](repeating: 0, count: depth)
        private let condition = NSCondition()
        private var filled = 0
        private var taken = 0
        private var finished = false
        private var cancelled = false
        private var failure: GzipError?
        private var running = true
        /// Hashes the compressed bytes as they are read, when asked (an artifact read from where it lies).
        private var inputHasher: SHA256?
        private var inputBytes: Int64 = 0

        init(input: Int32, path: String, limit: Int64?, hashInput: Bool = false) {
            self.input = input
            self.path = path
            self.limit = limit
            inputHasher = hashInput ? SHA256() : nil
            buffers = (0..<Self.depth).map { _ in .allocate(capacity: GzipInflater.chunkSize) }
            let thread = Thread { [self] in run() }
            thread.stackSize = 1 << 20
            thread.start()
        }

        deinit {
            for buffer in buffers { buffer.deallocate() }
        }

        /// The next inflated chunk in order, nil at the end of the stream; throws the inflater's error.
        /// The chunk stays valid until ``release()``.
        func next() throws(GzipError) -> UnsafeRawBufferPointer? {
            let (chunk, error): (UnsafeRawBufferPointer?, GzipError?) = condition.withLock {
                while taken == filled && !finished { condition.wait() }
                if taken < filled {
                    let slot = taken % Self.depth
                    return (UnsafeRawBufferPointer(start: buffers[slot], count: counts[slot]), nil)
                }
                return (nil, self.failure)
            }
            if let error { throw error }
            return chunk
        }

        /// Size and SHA-256 of every compressed byte read, once ``next()`` returned nil (nil unless asked).
        var inputDigest: FileDigest? {
            condition.withLock {
                inputHasher.map { FileDigest(bytes: inputBytes, sha256: Data($0.finalize()).hexString) }
            }
        }

        /// Gives the chunk ``next()`` returned back to the inflater.
        func release() {
            condition.withLock {
                taken += 1
                condition.broadcast()
            }
        }

        /// Stops the inflater (after a failure on the caller's side) and waits for its thread.
        func stop() {
            condition.withLock {
                cancelled = true
                condition.broadcast()
                while running { condition.wait() }
            }
        }

        private func run() {
            let outcome = Result { () throws(GzipError) in try inflateAll() }
            condition.withLock {
                if case .failure(let error) = outcome { failure = error }
                finished = true
                running = false
                condition.broadcast()
            }
        }

        /// Waits for a free buffer; nil once the caller stopped.
        private func freeBuffer() -> Int? {
            condition.withLock {
                while filled - taken == Self.depth && !cancelled { condition.wait() }
                return cancelled ? nil : filled % Self.depth
            }
        }

        private func hand(_ slot: Int, count: Int) {
            condition.withLock {
                counts[slot] = count
                filled += 1
                condition.broadcast()
            }
        }

        private func readInput(into buffer: UnsafeMutablePointer<UInt8>) throws(GzipError) -> Int {
            let count = try readChunk(input, into: buffer, path: path)
            if inputHasher != nil {
                condition.withLock {
                    inputHasher!.update(bufferPointer: UnsafeRawBufferPointer(start: buffer, count: count))
                    inputBytes += Int64(count)
                }
            }
            return count
        }

        private func inflateAll() throws(GzipError) {
            let inBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
            defer { inBuffer.deallocate() }
            var stream = z_stream()
            // 16 + 15: a gzip wrapper only (no zlib or raw), 32 KiB window.
            guard czlib_inflateInit2(&stream, 16 + 15) == Z_OK else {
                throw GzipError(.zlib(code: Z_MEM_ERROR, message: "inflateInit2 failed"), path: path)
            }
            defer { inflateEnd(&stream) }
            var written: Int64 = 0
            var consumed: Int64 = 0
            var first = true
            while true {
                let count = try readInput(into: inBuffer)
                if count == 0 { throw GzipError(.truncated(at: consumed), path: path) }
                if first {
                    guard count >= 2, inBuffer[0] == 0x1F, inBuffer[1] == 0x8B else { throw GzipError(.notGzip, path: path) }
                    first = false
                }
                consumed += Int64(count)
                stream.next_in = inBuffer
                stream.avail_in = UInt32(count)
                var code: Int32 = Z_OK
                repeat {
                    guard let slot = freeBuffer() else { return }
                    stream.next_out = buffers[slot]
                    stream.avail_out = UInt32(chunkSize)
                    code = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = chunkSize - Int(stream.avail_out)
                    if code == Z_DATA_ERROR {
                        let message = stream.msg.map { String(cString: $0) } ?? "invalid data"
                        throw GzipError(message.contains("check") ? .checksumMismatch : .corrupt(message), path: path)
                    }
                    guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else {
                        throw GzipError(.zlib(code: code, message: stream.msg.map { String(cString: $0) } ?? ""), path: path)
                    }
                    if produced > 0 {
                        written += Int64(produced)
                        if let limit, written > limit { throw GzipError(.tooLarge(limit: limit), path: path) }
                        hand(slot, count: produced)
                    }
                } while code != Z_STREAM_END && stream.avail_out == 0
                if code == Z_STREAM_END {
                    let more = stream.avail_in > 0 ? 1 : try readInput(into: inBuffer)
                    if more > 0 { throw GzipError(.trailingData, path: path) }
                    return
                }
            }
        }
    }
}
