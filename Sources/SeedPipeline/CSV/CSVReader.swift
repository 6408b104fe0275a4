import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict, streaming RFC 4180 reader over a file's bytes.
///
/// Reads with `read(2)` into one buffer and hands out fields as byte views into it, so memory stays
/// flat whatever the file size and no `String` is made per field. Strict: unterminated quotes, text
/// after a closing quote, quotes inside unquoted fields, bare carriage returns, ragged records,
/// invalid UTF-8 and NUL bytes are errors naming the line and field.
///
/// The SHA-256 the build records is hashed from the very bytes parsed, in the same pass, so a pipe
/// or FIFO works and the checksum always describes what was loaded; a regular file whose size or
/// modification time changed by the time its end was read is an error (``CSVError/Kind/changedWhileRead``).
///
/// ```swift
/// let reader = try CSVReader(path: "postcodes.csv")
/// while let record = try reader.next() {
///     let postcode = record.string(0)
/// }
/// ```
public final class CSVReader {
    public let path: String
    /// The header's column names; a leading UTF-8 byte order mark is stripped. Set once, before
    /// any record; unchecked because the scan's error paths read it and the check ran per field.
    @exclusivity(unchecked) public private(set) var header: [String] = []
    /// The size when opened; 0 for a pipe or FIFO, whose size is unknown.
    public let fileSize: Int
    /// Whether the input is a regular file (it can be read again, and its size is known).
    public let isRegularFile: Bool

    /// Whether the file at `path` is a regular file, which can be read a second time (a pipe or
    /// FIFO read once is empty, or waits for a writer that never comes), before opening it.
    static func canBeReadAgain(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
    /// Bytes read from the file so far, for progress.
    @exclusivity(unchecked) public private(set) var bytesRead = 0
    /// SHA-256 (64 lowercase hex characters) of every byte read, set once the end of the file was read.
    public private(set) var sha256: String?

    /// A record longer than this is rejected (``CSVError/Kind/recordTooLong(limit:)``) and skipped
    /// without ever holding more than this many bytes of it.
    public let maxRecordBytes: Int
    /// How much of an over-long record is kept for the rejects file.
    static let keptPrefix = 4096
    /// Set while the last error is about an over-long record: the prefix kept of it.
    private var longRecordPrefix: [UInt8]?

    private let descriptor: Int32
    private var hasher = SHA256()
    private let openedStatus: stat
    // The per-byte and per-field paths touch these; dynamic exclusivity checks on them measured ~11%
    // of a build. A reader is used by one thread at a time, so no access can overlap.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    @exclusivity(unchecked) private var endOfFile = false
    /// The line the next record starts on.
    @exclusivity(unchecked) private var line = 1
    @exclusivity(unchecked) private var recordsRead = 0

    /// Where one field lies in the buffer; `escaped` when it holds doubled quotes to undo.
    struct FieldSpan {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    /// Fields past this many are counted but not recorded (the record is then ragged anyway).
    static let maxFields = 4096
    let spans: UnsafeMutablePointer<FieldSpan>
    @exclusivity(unchecked) var fieldCount = 0
    @exclusivity(unchecked) var recordStart = 0
    @exclusivity(unchecked) var recordEnd = 0
    @exclusivity(unchecked) var recordLine = 0
    @exclusivity(unchecked) var scratch: [UInt8] = []

    /// Opens the file and reads its header.
    /// - Throws: ``CSVError`` when the file cannot be read, is empty, or its header is malformed.
    public static let defaultMaxRecordBytes = 16 << 20

    public init(path: String, bufferSize: Int = 1 << 20, maxRecordBytes: Int = CSVReader.defaultMaxRecordBytes) throws(CSVError) {
        self.path = path
        self.maxRecordBytes = max(maxRecordBytes, 64)
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw CSVError(path: path, line: 0, kind: .cannotOpen(String(cString: strerror(errno))))
        }
        var status = stat()
        if fstat(descriptor, &status) != 0 { status = stat() }
        openedStatus = status
        isRegularFile = status.st_mode & S_IFMT == S_IFREG
        fileSize = isRegularFile ? Int(status.st_size) : 0
        capacity = max(min(bufferSize, self.maxRecordBytes), 16)
        storage = .allocate(capacity: capacity)
        spans = .allocate(capacity: Self.maxFields)
        try readHeader()
    }

    deinit {
        close(descriptor)
        storage.deallocate()
        spans.deallocate()
    }

    /// Reads the next record; nil at the end of the file. The record is valid until the next call.
    /// - Throws: ``CSVError``; after a recoverable one (``CSVError/isRecoverable``) the next call goes on
    ///   with the following record.
    public func next() throws(CSVError) -> CSVRecord? {
        longRecordPrefix = nil
        guard try parseRecord() else {
            if recordsRead == 0 { throw CSVError(path: path, line: line, kind: .headerOnly) }
            return nil
        }
        recordsRead += 1
        let count = fieldCount
        if count != header.count {
            if count > header.count {
                throw CSVError(path: path, line: recordLine, column: header.count + 1, kind: .tooManyFields(expected: header.count, found: count))
            }
            throw CSVError(path: path, line: recordLine, column: count + 1, field: header[count], kind: .tooFewFields(expected: header.count, found: count))
        }
        return CSVRecord(reader: self)
    }

    /// The last record's bytes as they stand in the file; after a recoverable error, the record at fault.
    public var lastRecordBytes: [UInt8] {
        longRecordPrefix ?? Array(UnsafeBufferPointer(start: storage + recordStart, count: recordEnd - recordStart))
    }

    var buffer: UnsafeMutablePointer<UInt8> { storage }
    var startIndex: Int { start }
    var endIndex: Int { end }
    var isAtEndOfFile: Bool { endOfFile }
    var currentLine: Int { line }

    private func readHeader() throws(CSVError) {
        try fill()
        if end - start >= 3, storage[0] == 0xEF, storage[1] == 0xBB, storage[2] == 0xBF { start = 3 }
        guard try parseRecord() else { throw CSVError(path: path, line: 1, kind: .emptyFile) }
        var names: [String] = []
        guard fieldCount <= Self.maxFields else {
            throw CSVError(path: path, line: 1, column: Self.maxFields + 1, kind: .tooManyFields(expected: Self.maxFields, found: fieldCount))
        }
        for index in 0..<fieldCount {
            let name = CSVRecord(reader: self).string(index)
            guard !name.isEmpty else { throw CSVError(path: path, line: 1, column: index + 1, kind: .emptyHeaderName) }
            if names.contains(name) {
                throw CSVError(path: path, line: 1, column: index + 1, field: name, kind: .duplicateHeaderName(name))
            }
            names.append(name)
        }
        header = names
    }

    /// Moves the unread bytes to the front, grows the buffer if a record fills it, and reads more.
    private func fill() throws(CSVError) {
        if start > 0 {
            memmove(storage, storage + start, end - start)
            end -= start
            start = 0
        }
        if end == capacity {
            // Never past the record limit: a record that fills it is skipped instead (skipLongRecord).
            let grownCapacity = min(capacity * 2, max(maxRecordBytes, capacity))
            if grownCapacity > capacity {
                let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: grownCapacity)
                grown.update(from: storage, count: end)
                storage.deallocate()
                storage = grown
                capacity = grownCapacity
            }
        }
        while true {
            let count = read(descriptor, storage + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw CSVError(path: path, line: line, kind: .readFailed(String(cString: strerror(errno))))
            }
            if count == 0 {
                endOfFile = true
                try checkUnchanged()
                sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            } else {
                hasher.update(bufferPointer: UnsafeRawBufferPointer(start: storage + end, count: count))
            }
            end += count
            bytesRead += count
            return
        }
    }

    /// Skips the record at `start`, which is longer than ``maxRecordBytes``, keeping only a prefix:
    /// it ends at the first line feed outside quotes (quotes toggle, so `""` inside a quoted field is
    /// two toggles). Reading on reuses the buffer, so memory stays at the limit. Throws the
    /// recoverable ``CSVError/Kind/recordTooLong(limit:)``, or, when the file ends inside quotes,
    /// the unterminated quote it is.
    private func skipLongRecord() throws(CSVError) {
        let firstLine = line
        longRecordPrefix = Array(UnsafeBufferPointer(start: storage + start, count: min(Self.keptPrefix, end - start)))
        recordStart = 0
        recordEnd = 0
        var inQuotes = false
        var lines = 0
        while true {
            while start < end {
                let byte = storage[start]
                start += 1
                if byte == 0x22 { inQuotes.toggle() }
                if byte == 0x0A {
                    lines += 1
                    if !inQuotes {
                        line += lines
                        recordLine = firstLine
                        throw CSVError(path: path, line: firstLine, kind: .recordTooLong(limit: maxRecordBytes))
                    }
                }
            }
            if endOfFile {
                line += lines
                if inQuotes { throw CSVError(path: path, line: firstLine, column: 1, kind: .unterminatedQuote) }
                throw CSVError(path: path, line: firstLine, kind: .recordTooLong(limit: maxRecordBytes))
            }
            try fill()
        }
    }

    /// A regular file must end as it began: the bytes read equal its size when opened, and its size
    /// and modification time are the same now (it was not truncated, appended to or rewritten).
    private func checkUnchanged() throws(CSVError) {
        guard isRegularFile else { return }
        var now = stat()
        let changed = fstat(descriptor, &now) != 0 || now.st_size != openedStatus.st_size
            || now.st_mtim.tv_sec != openedStatus.st_mtim.tv_sec || now.st_mtim.tv_nsec != openedStatus.st_mtim.tv_nsec
            || bytesRead != fileSize
        if changed {
            throw CSVError(path: path, line: line, kind: .changedWhileRead(opened: fileSize, read: bytesRead, now: Int(now.st_size)))
        }
    }

    /// Parses one record at `start`, reading more as needed. False at the end of the file.
    private func parseRecord() throws(CSVError) -> Bool {
        while true {
            if start == end {
                if endOfFile { return false }
                try fill()
                continue
            }
            switch try scanRecord() {
            case .complete(let next, let lines, let encodingError):
                let blankFinalLine = fieldCount == 1 && recordEnd == recordStart && next >= end && endOfFile
                start = next
                recordLine = line
                line += lines
                if blankFinalLine { return false }
                if start == end, !endOfFile, fieldCount == 1, recordEnd == recordStart {
                    // A blank line just before the buffer end: only a blank *final* line is ignored, so look ahead.
                    try fill()
                    if start == end && endOfFile { return false }
                }
                if let encodingError { throw encodingError }
                return true
            case .needMore:
                if end - start >= maxRecordBytes { try skipLongRecord() }
                try fill()
            }
        }
    }
}
