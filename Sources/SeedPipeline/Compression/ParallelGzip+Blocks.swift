import CZlib
import Dispatch
import SeedStore

extension ParallelGzip {
    struct Block: Sendable {
        var output: [UInt8]
        var crc: UInt
        var length: Int
    }

    /// Deflates one round of blocks concurrently; block `i` is primed with the 32 KiB before it.
    func compressRound(
        _ bytes: UnsafeRawBufferPointer, dictionary tail: [UInt8], finish: Bool, path: String
    ) throws(GzipError) -> [Block] {
        let count = max((bytes.count + Self.blockSize - 1) / Self.blockSize, finish ? 1 : 0)
        let results = UnsafeMutableBufferPointer<Result<Block, GzipError>>.allocate(capacity: count)
        defer { results.deallocate() }
        let level = self.level
        nonisolated(unsafe) let input = bytes
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let start = index * Self.blockSize
            let end = min(start + Self.blockSize, input.count)
            let block = UnsafeRawBufferPointer(rebasing: input[start..<end])
            let isLast = finish && index == count - 1
            let outcome: Result<Block, GzipError>
            if index == 0 {
                outcome = tail.withUnsafeBytes { Self.deflateBlock(block, dictionary: $0, level: level, last: isLast, path: path) }
            } else {
                let dictionary = UnsafeRawBufferPointer(rebasing: input[max(0, start - Self.window)..<start])
                outcome = Self.deflateBlock(block, dictionary: dictionary, level: level, last: isLast, path: path)
            }
            (slots.baseAddress! + index).initialize(to: outcome)
        }
        var blocks: [Block] = []
        for index in 0..<count {
            let outcome = (results.baseAddress! + index).move()
            switch outcome {
            case .success(let block): blocks.append(block)
            case .failure(let error):
                for rest in (index + 1)..<count { _ = (results.baseAddress! + rest).move() }
                throw error
            }
        }
        return blocks
    }

    /// Raw deflate of one block, ended with a sync flush (byte-aligned, not final) or, for the last, finished.
    static func deflateBlock(
        _ block: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, level: Int32, last: Bool, path: String
    ) -> Result<Block, GzipError> {
        var stream = z_stream()
        // -15: raw deflate with a 32 KiB window; memory level 8 as gzip uses.
        guard czlib_deflateInit2(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            return .failure(GzipError(.zlib(code: Z_MEM_ERROR, message: "deflateInit2 failed"), path: path))
        }
        defer { deflateEnd(&stream) }
        if dictionary.count > 0 {
            let code = deflateSetDictionary(&stream, dictionary.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(dictionary.count))
            guard code == Z_OK else { return .failure(GzipError(.zlib(code: code, message: "deflateSetDictionary"), path: path)) }
        }
        let bound = Int(deflateBound(&stream, uLong(block.count))) + 64
        var output = [UInt8](repeating: 0, count: bound)
        let code: Int32 = output.withUnsafeMutableBytes { out in
            stream.next_in = UnsafeMutablePointer(mutating: block.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(block.count)
            stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(out.count)
            return deflate(&stream, last ? Z_FINISH : Z_SYNC_FLUSH)
        }
        guard code == (last ? Z_STREAM_END : Z_OK), stream.avail_in == 0 else {
            return .failure(GzipError(.zlib(code: code, message: "deflate did not complete the block"), path: path))
        }
        output.removeLast(Int(stream.avail_out))
        let crc = block.count == 0 ? crc32(0, nil, 0) : crc32(0, block.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(block.count))
        return .success(Block(output: output, crc: crc, length: block.count))
    }
}
