import CZlib
import Foundation
import SeedStore

extension ParallelGzip {
    /// One block in flight: its input after the 32 KiB before it (the dictionary), and its output.
    ///
    /// Safe to send: a slot belongs to one thread at a time, handed from the caller to a worker and back through
    /// `Workers`' condition (`submit`, `wait(for:)`).
    final class Slot: @unchecked Sendable {
        let input: UnsafeMutablePointer<UInt8>
        let output: UnsafeMutablePointer<UInt8>
        let outputCapacity: Int
        var dictionaryCount = 0
        var count = 0
        var isLast = false
        var outputCount = 0
        var crc: UInt = 0
        var failure: GzipError?

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

    /// Deflates slots on worker threads, each with one zlib stream reset between blocks; the caller
    /// submits slots in order and takes them back in the same order.
    ///
    /// Safe to send: `queue`, `finished`, `stopping` and `running` are read and written only under `condition`; the
    /// rest are `let`s.
    final class Workers: @unchecked Sendable {
        private let condition = NSCondition()
        private var queue: [Slot] = []
        private var finished: Set<ObjectIdentifier> = []
        private var stopping = false
        private var running = 0
        private let level: Int32
        private let path: String

        init(threads: Int, level: Int32, path: String) {
            self.level = level
            self.path = path
            for _ in 0..<threads {
                running += 1
                let thread = Thread { [self] in work() }
                thread.stackSize = 1 << 20
                thread.start()
            }
        }

        func submit(_ slot: Slot) {
            condition.withLock {
                queue.append(slot)
                condition.broadcast()
            }
        }

        /// Waits until `slot` is deflated.
        func wait(for slot: Slot) {
            condition.withLock {
                while !finished.contains(ObjectIdentifier(slot)) { condition.wait() }
                finished.remove(ObjectIdentifier(slot))
            }
        }

        /// Stops the threads once the queue is empty and waits for them.
        func stop() {
            condition.withLock {
                stopping = true
                condition.broadcast()
                while running > 0 { condition.wait() }
            }
        }

        private func work() {
            var stream = z_stream()
            // -15: raw deflate with a 32 KiB window; memory level 8 as gzip uses. Level 9 (a hash table
            // twice the size) was measured on the whole 371 MB Core Data store: 0.07% smaller for 11%
            // more CPU, so not worth it.
            let initialised = czlib_deflateInit2(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK
            defer {
                if initialised { deflateEnd(&stream) }
                condition.withLock {
                    running -= 1
                    condition.broadcast()
                }
            }
            while true {
                let next: Slot? = condition.withLock {
                    while queue.isEmpty && !stopping { condition.wait() }
                    return queue.isEmpty ? nil : queue.removeFirst()
                }
                guard let slot = next else { return }
                if initialised {
                    deflate(slot, stream: &stream)
                } else {
                    slot.failure = GzipError(.zlib(code: Z_MEM_ERROR, message: "deflateInit2 failed"), path: path)
                }
                condition.withLock {
                    finished.insert(ObjectIdentifier(slot))
                    condition.broadcast()
                }
            }
        }

        /// Raw deflate of one block, ended with a sync flush (byte-aligned, not final) or, for the last, finished.
        private func deflate(_ slot: Slot, stream: inout z_stream) {
            slot.failure = nil
            var code = deflateReset(&stream)
            // deflateReset restores the level's stock parameters, so the tuning goes after it.
            if code == Z_OK, let tuning = ParallelGzip.tuning(level: level) {
                code = deflateTune(&stream, tuning.goodLength, tuning.maxLazy, tuning.niceLength, tuning.maxChain)
            }
            if code == Z_OK, slot.dictionaryCount > 0 {
                code = deflateSetDictionary(&stream, slot.input, uInt(slot.dictionaryCount))
            }
            guard code == Z_OK else {
                slot.failure = GzipError(.zlib(code: code, message: "deflateReset/deflateTune/deflateSetDictionary"), path: path)
                return
            }
            stream.next_in = slot.input + slot.dictionaryCount
            stream.avail_in = uInt(slot.count)
            stream.next_out = slot.output
            stream.avail_out = uInt(slot.outputCapacity)
            code = CZlib.deflate(&stream, slot.isLast ? Z_FINISH : Z_SYNC_FLUSH)
            guard code == (slot.isLast ? Z_STREAM_END : Z_OK), stream.avail_in == 0, stream.avail_out > 0 else {
                slot.failure = GzipError(.zlib(code: code, message: "deflate did not complete the block"), path: path)
                return
            }
            slot.outputCount = slot.outputCapacity - Int(stream.avail_out)
            slot.crc = crc32(0, slot.input + slot.dictionaryCount, uInt(slot.count))
        }
    }
}
