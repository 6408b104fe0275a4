import CZlib
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Inflates a gzip file to another file in chunks, with constant memory.
///
/// Checks the header, the CRC-32 and length in the trailer, that the file is one member with
/// nothing after it, and never writes more than `maxOutputBytes` — so a stated size bounds a
/// malicious or corrupt download ([RFC 1952](https://www.rfc-editor.org/rfc/rfc1952)).
///
/// ```swift
/// let bytes = try GzipInflater.inflate("seed.sqlite.gz", to: "seed.sqlite", maxOutputBytes: manifest.store.bytes)
/// ```
public enum GzipInflater {
    static let chunkSize = 1 << 18

    /// - Parameters:
    ///   - observe: sees every inflated chunk in order (for a SHA-256 in the same pass).
    /// - Returns: the number of bytes written.
    @discardableResult
    public static func inflate(
        _ source: String, to destination: String, maxOutputBytes: Int64? = nil,
        observe: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(GzipError) -> Int64 {
        let input = open(source, O_RDONLY)
        guard input >= 0 else { throw GzipError(.io("cannot open: \(String(cString: strerror(errno)))"), path: source) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard output >= 0 else { throw GzipError(.io("cannot create: \(String(cString: strerror(errno)))"), path: destination) }
        defer { close(output) }
        return try inflate(from: input, path: source, to: output, outputPath: destination, limit: maxOutputBytes, observe: observe)
    }

    /// Inflates a downloaded file from its first byte into `output`, both read and written through
    /// their descriptors (see ``DownloadFile``).
    static func inflate(
        _ source: DownloadFile, to output: DownloadFile, maxOutputBytes: Int64?, observe: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(GzipError) -> Int64 {
        guard lseek(source.descriptor, 0, SEEK_SET) == 0, ftruncate(output.descriptor, 0) == 0, lseek(output.descriptor, 0, SEEK_SET) == 0 else {
            throw GzipError(.io("cannot rewind: \(String(cString: strerror(errno)))"), path: source.path)
        }
        return try inflate(from: source.descriptor, path: source.path, to: output.descriptor, outputPath: output.path, limit: maxOutputBytes, observe: observe)
    }

    private static func inflate(
        from input: Int32, path: String, to output: Int32, outputPath: String, limit: Int64?,
        observe: ((UnsafeRawBufferPointer) -> Void)?
    ) throws(GzipError) -> Int64 {
        let inBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
        let outBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
        defer {
            inBuffer.deallocate()
            outBuffer.deallocate()
        }
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
            let count = try readChunk(input, into: inBuffer, path: path)
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
                stream.next_out = outBuffer
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
                    let chunk = UnsafeRawBufferPointer(start: outBuffer, count: produced)
                    observe?(chunk)
                    try writeAll(output, chunk, path: outputPath)
                }
            } while code != Z_STREAM_END && stream.avail_out == 0
            if code == Z_STREAM_END {
                let more = stream.avail_in > 0 ? 1 : try readChunk(input, into: inBuffer, path: path)
                if more > 0 { throw GzipError(.trailingData, path: path) }
                return written
            }
        }
    }

    static func readChunk(_ descriptor: Int32, into buffer: UnsafeMutablePointer<UInt8>, path: String) throws(GzipError) -> Int {
        while true {
            let count = read(descriptor, buffer, chunkSize)
            if count >= 0 { return count }
            if errno != EINTR { throw GzipError(.io("cannot read: \(String(cString: strerror(errno)))"), path: path) }
        }
    }

    /// Writes every byte, retrying short writes.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(GzipError) {
        var offset = 0
        while offset < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw GzipError(.io("cannot write: \(String(cString: strerror(errno))); check free space"), path: path)
            }
            offset += count
        }
    }
}
