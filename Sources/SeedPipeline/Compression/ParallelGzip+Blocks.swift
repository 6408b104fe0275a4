import CZlib
import Foundation
import SeedStore

extension ParallelGzip {
    /// One block in flight: its input after the 32 KiB before it (the dictionary), and its output.
    /// It passes between the threads through ``OrderedWorkers``; besides, the caller copies the end of
    /// the block submitted last into the next one's dictionary while a thread deflates it, both only
    /// reading it.
    final class Slot {
        let input: UnsafeMutablePointer<UInt8>
        let output: UnsafeMutablePointer<UInt8>
        let outputCapacity: Int
        var dictionaryCount = 0
        var count = 0
        var isLast = false
        var outputCount = 0
        var crc: UInt = 0

        init() {
            input = .allocate(capacity: ParallelGzip.window + ParallelGzip.blockSize)
            // deflateBound of a block plus room for the sync flush's empty stored block.
            outputCapacity = ParallelGzip.blockSize + ParallelGzip.blockSize / 1000 * 2 + 1024
            output = .allocate(capacity: outputCapacity)
        }

        deinit {
            input.deallocate()
            output.deallocate()
        }

        var block: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: input + dictionaryCount, count: count) }
        var dictionary: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: input, count: dictionaryCount) }
    }

    /// What one thread deflates blocks with: a raw-deflate stream of its own, reset between blocks.
    final class BlockDeflater {
        private let level: Int32
        private let path: String
        /// At a fixed address, as zlib requires (its state points back at the stream).
        private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        private let initialised: Bool

        init(level: Int32, path: String) {
            self.level = level
            self.path = path
            stream.initialize(to: z_stream())
            // -15: raw deflate with a 32 KiB window; memory level 8 as gzip uses. Level 9 (a hash table
            // twice the size) was measured on the whole 371 MB Core Data store: 0.07% smaller for 11%
            // more CPU, so not worth it.
            initialised = czlib_deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK
        }

        deinit {
            if initialised { deflateEnd(stream) }
            stream.deallocate()
        }

        func deflate(_ slot: Slot) throws(GzipError) {
            guard initialised else { throw GzipError(.zlib(code: Z_MEM_ERROR, message: "deflateInit2 failed"), path: path) }
            try deflate(slot, stream: &stream.pointee)
        }

        /// Raw deflate of one block, ended with a sync flush (byte-aligned, not final) or, for the last, finished.
        private func deflate(_ slot: Slot, stream: inout z_stream) throws(GzipError) {
            var code = deflateReset(&stream)
            // deflateReset restores the level's stock parameters, so the tuning goes after it.
            if code == Z_OK, let tuning = ParallelGzip.tuning(level: level) {
                code = deflateTune(&stream, tuning.goodLength, tuning.maxLazy, tuning.niceLength, tuning.maxChain)
            }
            if code == Z_OK, slot.dictionaryCount > 0 {
                code = deflateSetDictionary(&stream, slot.input, uInt(slot.dictionaryCount))
            }
            guard code == Z_OK else {
                throw GzipError(.zlib(code: code, message: "deflateReset/deflateTune/deflateSetDictionary"), path: path)
            }
            stream.next_in = slot.input + slot.dictionaryCount
            stream.avail_in = uInt(slot.count)
            stream.next_out = slot.output
            stream.avail_out = uInt(slot.outputCapacity)
            code = CZlib.deflate(&stream, slot.isLast ? Z_FINISH : Z_SYNC_FLUSH)
            guard code == (slot.isLast ? Z_STREAM_END : Z_OK), stream.avail_in == 0, stream.avail_out > 0 else {
                throw GzipError(.zlib(code: code, message: "deflate did not complete the block"), path: path)
            }
            slot.outputCount = slot.outputCapacity - Int(stream.avail_out)
            slot.crc = crc32(0, slot.input + slot.dictionaryCount, uInt(slot.count))
        }
    }
}
