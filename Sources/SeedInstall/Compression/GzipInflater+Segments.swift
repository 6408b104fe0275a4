import CZlib
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension GzipInflater {
    /// Inflates a gzip file whose independent segments are listed in `segments` on every core: each
    /// thread reads and inflates whole segments, the calling thread takes them in order, hashes
    /// (through `observe`) and writes them.
    ///
    /// Stricter than the one-thread path, since every size is known: each segment must inflate to
    /// exactly its share of `outputBytes` and end at a block boundary where the next begins, only the
    /// last may finish the stream, then the trailer's CRC-32 and length must match and nothing may
    /// follow before `inputBytes`. Check the table first with ``GzipSegments/problem(inputBytes:outputBytes:)``.
    /// - Parameters:
    ///   - hashInput: also hash the compressed bytes, in order, as read.
    ///   - checksCRC: compute the data's CRC-32 and compare it with the trailer's. A caller that
    ///     checks both files' SHA-256s against a manifest (a fetch) learns nothing more from it and
    ///     passes false: 4% of a fetch's CPU.
    /// - Returns: the bytes written and, when asked, the size and SHA-256 of the compressed bytes read.
    static func inflate(
        segments: GzipSegments, input: Int32, path: String, inputBytes: Int64, outputBytes: Int64,
        to output: Int32, outputPath: String, hashInput: Bool, checksCRC: Bool = true,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, observe: ((UnsafeRawBufferPointer) -> Void)?
    ) throws(GzipError) -> (written: Int64, source: FileDigest?) {
        if let problem = segments.problem(inputBytes: inputBytes, outputBytes: outputBytes) {
            throw GzipError(.corrupt("the segment table does not fit the file: \(problem)"), path: path)
        }
        var header = [UInt8](repeating: 0, count: Int(segments.offsets[0]))
        guard try readFully(input, at: 0, into: &header, path: path) == header.count else {
            throw GzipError(.truncated(at: 0), path: path)
        }
        // The table's offsets count from a bare 10-byte header, which is what seedbuild writes.
        guard header[0] == 0x1F, header[1] == 0x8B, header[2] == 8 else { throw GzipError(.notGzip, path: path) }
        guard header[3] == 0 else {
            throw GzipError(.corrupt("a header with optional fields, which the segment table does not allow for"), path: path)
        }
        var inputHasher: SHA256? = hashInput ? SHA256() : nil
        inputHasher?.update(data: header)

        let count = max(1, min(threads, segments.offsets.count))
        // One slot more than threads: the caller writes one while each thread inflates another.
        let slots = (0...count).map { _ in SegmentSlot(outputCapacity: Int(min(segments.bytes, max(outputBytes, 1)))) }
        let workers = OrderedWorkers<SegmentSlot, GzipError>(slots: slots, threads: count) {
            let inflater = SegmentInflater(
                segments: segments, input: input, path: path, inputBytes: inputBytes, outputBytes: outputBytes, checksCRC: checksCRC)
            return { (index, slot) throws(GzipError) in try inflater.inflate(index, into: slot) }
        }
        defer { workers.stop() }
        var crc = crc32(0, nil, 0)
        var written: Int64 = 0
        for index in segments.offsets.indices {
            while workers.submitted < segments.offsets.count, workers.vacantSlot != nil { workers.submit() }
            let slot = try workers.take()
            inputHasher?.update(bufferPointer: slot.inputBytes)
            if checksCRC { crc = crc32_combine(crc, slot.crc, Int(slot.outputCount)) }
            let chunk = UnsafeRawBufferPointer(start: slot.output, count: slot.outputCount)
            written += Int64(chunk.count)
            observe?(chunk)
            try writeAll(output, chunk, path: outputPath)
            if index == segments.offsets.count - 1 {
                // The trailer: the CRC-32 and the length modulo 2^32 of all the data, little-endian.
                let trailer = slot.inputBytes.suffix(8)
                let storedCRC = trailer.prefix(4).reversed().reduce(UInt(0)) { $0 << 8 | UInt($1) }
                let storedLength = trailer.suffix(4).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard !checksCRC || storedCRC == crc, storedLength == UInt64(truncatingIfNeeded: written) & 0xFFFF_FFFF else {
                    throw GzipError(.checksumMismatch, path: path)
                }
            }
            workers.release()
        }
        return (written, inputHasher.map { FileDigest(bytes: inputBytes, sha256: Data($0.finalize()).hexString) })
    }

    /// Reads `buffer.count` bytes at `offset`, or fewer at the end of the file.
    fileprivate static func readFully(_ descriptor: Int32, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, path: String)
        throws(GzipError) -> Int
    {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw GzipError(.io("cannot read: \(String(cString: strerror(errno)))"), path: path)
            }
            done += count
        }
        return done
    }

    private static func readFully(_ descriptor: Int32, at offset: Int64, into bytes: inout [UInt8], path: String) throws(GzipError) -> Int {
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(GzipError) in try readFully(descriptor, at: offset, into: buffer, path: path) }
        }
        return try result.get()
    }

    /// One segment in flight: its compressed bytes as read and what they inflated to. It passes
    /// between the threads through ``OrderedWorkers``, which gives it to one thread at a time.
    fileprivate final class SegmentSlot {
        var input: UnsafeMutableRawPointer?
        var inputCapacity = 0
        var inputCount = 0
        let output: UnsafeMutablePointer<UInt8>
        var outputCount = 0
        var crc: UInt = 0

        init(outputCapacity: Int) {
            output = .allocate(capacity: max(outputCapacity, 1))
        }

        deinit {
            input.map { free($0) }
            output.deallocate()
        }

        var inputBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: input, count: inputCount) }

        func reserveInput(_ count: Int) -> Bool {
            guard count > inputCapacity else { return true }
            guard let grown = realloc(input, count) else { return false }
            input = grown
            inputCapacity = count
            return true
        }
    }

    /// What one thread inflates segments with: the file, the table, and a raw-inflate stream of its own.
    fileprivate final class SegmentInflater {
        private let segments: GzipSegments
        private let input: Int32
        private let path: String
        private let inputBytes: Int64
        private let outputBytes: Int64
        private let checksCRC: Bool
        /// At a fixed address, as zlib requires (its state points back at the stream).
        private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        private let initialised: Bool

        init(segments: GzipSegments, input: Int32, path: String, inputBytes: Int64, outputBytes: Int64, checksCRC: Bool) {
            self.segments = segments
            self.input = input
            self.path = path
            self.inputBytes = inputBytes
            self.outputBytes = outputBytes
            self.checksCRC = checksCRC
            stream.initialize(to: z_stream())
            initialised = czlib_inflateInit2(stream, -15) == Z_OK
        }

        deinit {
            if initialised { inflateEnd(stream) }
            stream.deallocate()
        }

        /// Reads segment `index` and inflates it into `slot`, checking it ends where the table says.
        func inflate(_ index: Int, into slot: SegmentSlot) throws(GzipError) {
            guard initialised else { throw GzipError(.zlib(code: Z_MEM_ERROR, message: "inflateInit2 failed"), path: path) }
            try inflate(index, into: slot, stream: &stream.pointee)
        }

        private func inflate(_ index: Int, into slot: SegmentSlot, stream: inout z_stream) throws(GzipError) {
            let isLast = index == segments.offsets.count - 1
            let start = segments.offsets[index]
            let end = isLast ? inputBytes : segments.offsets[index + 1]
            let expected = Int(min(segments.bytes, outputBytes - Int64(index) * segments.bytes))
            let count = Int(end - start)
            guard slot.reserveInput(count) else { throw GzipError(.io("cannot allocate \(count) bytes"), path: path) }
            let read = try readFully(input, at: start, into: UnsafeMutableRawBufferPointer(start: slot.input, count: count), path: path)
            guard read == count else { throw GzipError(.truncated(at: start + Int64(read)), path: path) }
            slot.inputCount = count
            func corrupt(_ why: String) -> GzipError {
                GzipError(.corrupt("segment \(index) of \(segments.offsets.count), from byte \(start): \(why)"), path: path)
            }
            guard inflateReset(&stream) == Z_OK else { throw GzipError(.zlib(code: Z_STREAM_ERROR, message: "inflateReset"), path: path) }
            stream.next_in = slot.input!.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = uInt(count)
            stream.next_out = slot.output
            stream.avail_out = uInt(expected)
            var code: Int32 = Z_OK
            while true {
                let (inBefore, outBefore) = (stream.avail_in, stream.avail_out)
                code = CZlib.inflate(&stream, Z_NO_FLUSH)
                if code == Z_DATA_ERROR { throw corrupt(stream.msg.map { String(cString: $0) } ?? "invalid data") }
                guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else {
                    throw GzipError(.zlib(code: code, message: stream.msg.map { String(cString: $0) } ?? ""), path: path)
                }
                // With the output full, inflate goes on through input that writes nothing (the end of
                // a block, the flush's empty stored block) until it stops making progress.
                if code == Z_STREAM_END || stream.avail_in == 0 || (stream.avail_in == inBefore && stream.avail_out == outBefore) { break }
            }
            slot.outputCount = expected - Int(stream.avail_out)
            if isLast {
                guard code == Z_STREAM_END else {
                    // More data than the stated size: refused as the one-pass path refuses a gzip bomb.
                    throw slot.outputCount == expected && stream.avail_in > 0
                        ? GzipError(.tooLarge(limit: outputBytes), path: path) : GzipError(.truncated(at: end), path: path)
                }
                guard slot.outputCount == expected else { throw corrupt("inflates to \(slot.outputCount) bytes, not \(expected)") }
                guard stream.avail_in == 8 else {
                    throw stream.avail_in > 8 ? GzipError(.trailingData, path: path) : GzipError(.truncated(at: end), path: path)
                }
            } else {
                guard code != Z_STREAM_END else { throw corrupt("ends the gzip stream before the last segment") }
                guard stream.avail_in == 0 else { throw corrupt("inflates to more than its \(expected) bytes") }
                guard slot.outputCount == expected else { throw corrupt("inflates to \(slot.outputCount) bytes, not \(expected)") }
                // Between blocks (waiting for a block header), on a byte boundary: where the next segment starts.
                guard stream.data_type & (128 | 64 | 0x3F) == 128 else { throw corrupt("does not end on a block boundary") }
            }
            if checksCRC { slot.crc = crc32(0, slot.output, uInt(slot.outputCount)) }
        }
    }
}
