import CZlib
import Foundation
import SeedInstall

/// Writes a delta file as its operations come, gzip-compressed on the way, in bounded memory.
///
/// The file is written under a temporary name and renamed into place by ``finish()``, so a diff
/// that fails leaves no half delta behind. The gzip header carries no time and a fixed OS byte:
/// the same delta gives the same bytes.
/// ```swift
/// var writer = try DeltaWriter(path: "1→2.delta.gz", header: header)
/// try writer.write(.delete(table: 0, key: [.integer(7)]))
/// try writer.finish()
/// ```
public final class DeltaWriter {
    /// Encoded bytes are deflated whenever this many are pending.
    static let chunkSize = 1 << 16

    public let path: String
    package let header: DeltaHeader
    private let temporaryPath: String
    private let output: FileHandle
    /// zlib keeps pointers to the stream (its state points back at it) and to the gzip header until
    /// the header is written: both live at fixed addresses until `deinit`.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let gzipHeader = UnsafeMutablePointer<gz_header>.allocate(capacity: 1)
    private var pending: [UInt8] = []
    private var order: DeltaOrder
    private var count: UInt64 = 0
    private var finished = false

    /// zlib's level for deltas. A delta's rows deflate slowly at the top levels (a 714 KB delta: level
    /// 9 took 0.22 s, 8 0.09 s, 7 0.03 s, 6 0.02 s), and a nightly job writes K of them; level 7's file
    /// is 3.5% larger than level 9's (a few kilobytes, where the artifact is megabytes).
    public static let defaultLevel: Int32 = 7

    /// Creates the file and writes the header.
    /// - Parameter level: zlib's compression level, 1–9.
    package init(path: String, header: DeltaHeader, level: Int32 = DeltaWriter.defaultLevel) throws(DeltaError) {
        self.path = path
        self.header = header
        temporaryPath = path + ".partial"
        order = DeltaOrder(tables: header.tables)
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporaryPath)
        else { throw DeltaError(.io, "\(path): cannot create \(temporaryPath)") }
        output = handle
        stream.initialize(to: z_stream())
        gzipHeader.initialize(to: gz_header())
        gzipHeader.pointee.os = 255
        // 31: a gzip wrapper around a 32 KiB window.
        guard czlib_deflateInit2(stream, level, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) == Z_OK else {
            // deinit (which runs: every property is set) closes and removes the file.
            throw DeltaError(.io, "\(path): zlib could not start deflating")
        }
        deflateSetHeader(stream, gzipHeader)
        try DeltaEncoder.append(header, to: &pending)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        gzipHeader.deallocate()
        if !finished {
            try? output.close()
            try? FileManager.default.removeItem(atPath: temporaryPath)
        }
    }

    /// Appends one operation; operations come in apply order (``Delta/operations``).
    package func write(_ operation: DeltaOperation) throws(DeltaError) {
        guard operation.table < order.tables.count else {
            throw DeltaError(.inconsistent, "an operation names table \(operation.table) of \(order.tables.count)")
        }
        try order.check(operation)
        try DeltaEncoder.append(operation, to: &pending)
        count += 1
        if pending.count >= Self.chunkSize { try deflatePending(finish: false) }
    }

    /// Ends the operations, flushes the compressed stream and moves the file into place.
    package func finish() throws(DeltaError) {
        pending.append(DeltaEncoding.end)
        DeltaEncoder.append(count, to: &pending)
        try deflatePending(finish: true)
        do {
            try output.synchronize()
            try output.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporaryPath, toPath: path)
        } catch {
            throw DeltaError(.io, "\(path): cannot write: \(error.localizedDescription)")
        }
        finished = true
    }

    private func deflatePending(finish: Bool) throws(DeltaError) {
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        var code = Z_OK
        pending.withUnsafeMutableBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    code = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    return buffer.count - Int(stream.pointee.avail_out)
                }
                if produced > 0 { output.write(Data(chunk[0..<produced])) }
            } while code == Z_OK && (stream.pointee.avail_out == 0 || finish)
        }
        guard code == (finish ? Z_STREAM_END : Z_OK) || (!finish && code == Z_BUF_ERROR) else {
            throw DeltaError(.io, "\(path): zlib error \(code) while deflating")
        }
        pending.removeAll(keepingCapacity: true)
    }
}
