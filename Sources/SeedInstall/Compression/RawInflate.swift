import CZlib
import Foundation

/// Inflates DEFLATE data held in memory: raw by default, as Core Data stores its cached model
/// ([RFC 1951](https://www.rfc-editor.org/rfc/rfc1951)), or one gzip member, as a delta is stored.
package enum RawInflate {
    /// Why the data does not inflate, without the file name.
    package struct Failure: Error {
        package let reason: String
    }

    /// - Parameters:
    ///   - limit: the most bytes inflated before refusing (a bound against a deflate bomb).
    ///   - windowBits: zlib's: -15 raw DEFLATE, 31 one gzip member (its CRC-32 and length checked,
    ///     nothing allowed after it); both with a 32 KiB window.
    package static func inflate(_ input: Data, limit: Int, windowBits: Int32 = -15) throws(Failure) -> Data {
        var stream = z_stream()
        guard czlib_inflateInit2(&stream, windowBits) == Z_OK else { throw Failure(reason: "zlib could not start inflating") }
        defer { inflateEnd(&stream) }
        var output = Data()
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        var code = Z_OK
        let bytes = [UInt8](input)
        try bytes.withUnsafeBufferPointer { (source) throws(Failure) in
            // zlib counts its input in a UInt32: more than 4 GiB is handed over in pieces.
            var handed = 0
            repeat {
                if stream.avail_in == 0, handed < source.count, let start = source.baseAddress {
                    let piece = min(source.count - handed, 1 << 30)
                    stream.next_in = UnsafeMutablePointer(mutating: start + handed)
                    stream.avail_in = UInt32(piece)
                    handed += piece
                }
                code = buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(chunk)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk - Int(stream.avail_out)
                guard code == Z_OK || code == Z_STREAM_END || (code == Z_BUF_ERROR && produced > 0) else {
                    let message = stream.msg.map { String(cString: $0) }
                    throw Failure(
                        reason: code == Z_BUF_ERROR
                            ? "the compressed data ends early; it is truncated"
                            : "corrupt compressed data (\(message ?? "zlib error \(code)"))")
                }
                guard output.count + produced <= limit else {
                    throw Failure(reason: "it inflates to more than \(limit) bytes; refusing it")
                }
                output.append(contentsOf: buffer[0..<produced])
            } while code != Z_STREAM_END
            if windowBits > 15, stream.avail_in > 0 || handed < source.count { throw Failure(reason: "bytes follow the gzip data") }
        }
        return output
    }
}
