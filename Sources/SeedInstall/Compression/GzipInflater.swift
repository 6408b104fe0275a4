import CZlib
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Inflates a gzip file to another file in chunks, with constant memory, on two threads: one
/// inflates while the caller's hashes (through `observe`) and writes the chunk before.
///
/// Checks the header, the CRC-32 and length in the trailer, that the file is one member with
/// nothing after it, and never writes more than `maxOutputBytes` — so a stated size bounds a
/// malicious or corrupt download ([RFC 1952](https://www.rfc-editor.org/rfc/rfc1952)).
///
/// ```swift
/// let bytes = try GzipInflater.inflate("seed.sqlite.gz", to: "seed.sqlite", maxOutputBytes: manifest.store.bytes)
/// ```
package enum GzipInflater {
    static let chunkSize = 1 << 18

    /// Inflates the gzip file at `source` into a file created (or emptied) at `destination`.
    /// - Parameters:
    ///   - segments: the artifact's segment table (its manifest's); with it and `maxOutputBytes` (then
    ///     the exact size) the segments are inflated on every core, each checked to end where the table
    ///     says. A table that cannot describe the file is an error here.
    ///   - observe: sees every inflated chunk in order (for a SHA-256 in the same pass).
    /// - Returns: the number of bytes written.
    @discardableResult
    package static func inflate(
        _ source: String, to destination: String, maxOutputBytes: Int64? = nil, segments: GzipSegments? = nil,
        observe: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(GzipError) -> Int64 {
        let input = open(source, O_RDONLY)
        guard input >= 0 else { throw GzipError(.io("cannot open: \(String(cString: strerror(errno)))"), path: source) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard output >= 0 else { throw GzipError(.io("cannot create: \(String(cString: strerror(errno)))"), path: destination) }
        defer { close(output) }
        var status = stat()
        if let segments, let maxOutputBytes, fstat(input, &status) == 0 {
            return try inflate(
                segments: segments, input: input, path: source, inputBytes: Int64(status.st_size), outputBytes: maxOutputBytes,
                to: output, outputPath: destination, hashInput: false, observe: observe
            ).written
        }
        return try inflateInOrder(from: input, path: source, limit: maxOutputBytes, to: output, outputPath: destination, observe: observe)
            .written
    }

    /// Inflates a downloaded file from its first byte into `output`, both read and written through
    /// their descriptors (see ``DownloadFile``).
    /// With `segments` that fit the file and `maxOutputBytes` (then the exact size), on every core,
    /// without the data's CRC-32: a fetch checks both files' SHA-256s instead.
    static func inflate(
        _ source: DownloadFile, to output: DownloadFile, maxOutputBytes: Int64?, segments: GzipSegments? = nil,
        observe: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(GzipError) -> Int64 {
        guard lseek(source.descriptor, 0, SEEK_SET) == 0 else {
            throw GzipError(.io("cannot rewind: \(String(cString: strerror(errno)))"), path: source.path)
        }
        return try inflate(
            input: source.descriptor, path: source.path, to: output, maxOutputBytes: maxOutputBytes, segments: segments, hashInput: false,
            observe: observe
        ).written
    }

    /// Inflates the gzip file at `source` (read where it lies: a folder channel's artifact) into
    /// `output`, hashing the compressed bytes on the way (on every core with `segments`, then without
    /// the data's CRC-32: a fetch checks both files' SHA-256s instead).
    /// - Returns: the bytes written, and the size and SHA-256 of the compressed file as read.
    static func inflate(
        file source: String, to output: DownloadFile, maxOutputBytes: Int64?, segments: GzipSegments? = nil,
        observe: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(GzipError) -> (written: Int64, source: FileDigest) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw GzipError(.io("cannot open: \(String(cString: strerror(errno)))"), path: source) }
        defer { close(input) }
        let (written, read) = try inflate(
            input: input, path: source, to: output, maxOutputBytes: maxOutputBytes, segments: segments, hashInput: true, observe: observe)
        return (written, read ?? FileDigest(bytes: 0, sha256: ""))
    }

    /// Inflates `input` into `output` from its first byte: on every core when `segments` can describe
    /// the file and `maxOutputBytes` (the exact size) is known, else in one pass, which checks the data
    /// on its own (the table only ever speeds it up).
    private static func inflate(
        input: Int32, path: String, to output: DownloadFile, maxOutputBytes: Int64?, segments: GzipSegments?, hashInput: Bool,
        observe: ((UnsafeRawBufferPointer) -> Void)?
    ) throws(GzipError) -> (written: Int64, source: FileDigest?) {
        guard ftruncate(output.descriptor, 0) == 0, lseek(output.descriptor, 0, SEEK_SET) == 0 else {
            throw GzipError(.io("cannot rewind: \(String(cString: strerror(errno)))"), path: output.path)
        }
        var status = stat()
        if let segments, let maxOutputBytes, fstat(input, &status) == 0,
            segments.problem(inputBytes: Int64(status.st_size), outputBytes: maxOutputBytes) == nil
        {
            return try inflate(
                segments: segments, input: input, path: path, inputBytes: Int64(status.st_size), outputBytes: maxOutputBytes,
                to: output.descriptor, outputPath: output.path, hashInput: hashInput, checksCRC: false, observe: observe)
        }
        return try inflateInOrder(
            from: input, path: path, limit: maxOutputBytes, hashInput: hashInput, to: output.descriptor, outputPath: output.path,
            observe: observe)
    }

    static func readChunk(_ descriptor: Int32, into buffer: UnsafeMutablePointer<UInt8>, path: String) throws(GzipError) -> Int {
        while true {
            let count = read(descriptor, buffer, chunkSize)
            if count >= 0 { return count }
            if errno != EINTR { throw GzipError(.io("cannot read: \(String(cString: strerror(errno)))"), path: path) }
        }
    }

    /// Writes every byte, retrying short writes.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(GzipError) {
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
