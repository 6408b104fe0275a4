import Crypto
import Foundation
import SeedModel

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
    /// Bytes read from the file so far (from the segment's start, for a segment), for progress.
    @exclusivity(unchecked) public private(set) var bytesRead = 0
    /// Where the first record after the header starts in the file, and its line.
    public private(set) var dataOffset = 0
    public private(set) var dataLine = 2
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
    /// A segment's parent, whose descriptor the segment reads through with `pread`: the same open
    /// file, whatever is renamed over its path meanwhile, and no descriptor per segment.
    private let parent: CSVReader?
    private var hasher = SHA256()
    /// Whether read bytes are hashed: a segment never hashes, and a reader whose hashing was handed
    /// off (``handOffHash()``) no longer does; ``sha256`` then stays nil.
    private var hashes: Bool
    private let openedStatus: stat
    /// Where this reader's bytes begin in the file: 0, or a segment's start.
    private let origin: Int
    /// Where this reader stops reading: the file's end (`Int.max`), or a segment's end.
    private let limit: Int
    /// Whether the reader's last byte is the file's: only there is a blank last line ignored.
    private let endsFile: Bool
    /// Whether the reader began at the file's header (a segment starts at a record).
    private let readsHeader: Bool
    /// The file offset of `storage[0]`.
    @exclusivity(unchecked) private var bufferOrigin = 0
    /// Where the last record returned starts in the file (kept when a look-ahead moves the buffer).
    @exclusivity(unchecked) private(set) var recordOffset = 0
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
    /// Fields recorded per record: ``maxFields``, or for a segment (whose header is known) one more
    /// than the header has — a record with more is ragged whatever they hold.
    let fieldLimit: Int
    let spans: UnsafeMutablePointer<FieldSpan>
    @exclusivity(unchecked) var fieldCount = 0
    @exclusivity(unchecked) var recordStart = 0
    @exclusivity(unchecked) var recordEnd = 0
    @exclusivity(unchecked) var recordLine = 0
    /// Where ``unescape(_:)`` writes a field with doubled quotes made single.
    @exclusivity(unchecked) private var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)

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
        parent = nil
        var status = stat()
        if fstat(descriptor, &status) != 0 { status = stat() }
        openedStatus = status
        isRegularFile = status.st_mode & S_IFMT == S_IFREG
        fileSize = isRegularFile ? Int(status.st_size) : 0
        capacity = max(min(bufferSize, self.maxRecordBytes), 16)
        storage = .allocate(capacity: capacity)
        fieldLimit = Self.maxFields
        spans = .allocate(capacity: fieldLimit)
        hashes = true
        origin = 0
        limit = Int.max
        endsFile = true
        readsHeader = true
        try readHeader()
    }

    /// A reader of the records in `range` of the regular file `parent` reads, with its header and
    /// limits: for reading a file's sorted runs side by side, or its records again from one of them.
    /// `range` starts at a record, on line `line`. The file must still be as `parent` found it when
    /// the segment's end is read (``CSVError/Kind/changedWhileRead``).
    init(segmentOf parent: CSVReader, range: Range<Int>, line: Int, bufferSize: Int = 64 << 10) {
        precondition(parent.isRegularFile && parent.parent == nil, "a segment reads a regular file through its first reader")
        path = parent.path
        maxRecordBytes = parent.maxRecordBytes
        descriptor = parent.descriptor
        self.parent = parent
        openedStatus = parent.openedStatus
        isRegularFile = parent.isRegularFile
        fileSize = parent.fileSize
        header = parent.header
        origin = range.lowerBound
        bufferOrigin = range.lowerBound
        limit = range.upperBound
        endsFile = range.upperBound >= parent.fileSize
        readsHeader = false
        dataOffset = parent.dataOffset
        dataLine = parent.dataLine
        hashes = false
        capacity = max(min(bufferSize, maxRecordBytes), 16)
        storage = .allocate(capacity: capacity)
        fieldLimit = min(Self.maxFields, parent.header.count + 1)
        spans = .allocate(capacity: fieldLimit)
        self.line = line
    }

    /// The file offset up to which this reader has read.
    var endOffset: Int { origin + bytesRead }

    /// Stops hashing and returns the SHA-256 so far and the file offset it covers up to, so another
    /// thread can finish it (``FileHash``) while this reader reads on. Nil for a reader that does not
    /// hash, or has read its file's end.
    func handOffHash() -> (hasher: SHA256, through: Int)? {
        guard hashes, !endOfFile else { return nil }
        hashes = false
        return (hasher, endOffset)
    }

    /// A copy of the descriptor, for reading the file on another thread (``FileHash``); the caller closes it.
    func duplicateDescriptor() -> Int32 { dup(descriptor) }

    deinit {
        if parent == nil { close(descriptor) }
        storage.deallocate()
        spans.deallocate()
        scratch.deallocate()
    }

    /// A quoted field's bytes with each doubled quote made single, in scratch space valid until the
    /// next call (rare: most fields hold none).
    func unescape(_ span: FieldSpan) -> UnsafeRawBufferPointer {
        let length = span.end - span.start
        if scratch.count < length {
            scratch.deallocate()
            scratch = .allocate(byteCount: max(length, 256), alignment: 1)
        }
        var i = span.start
        var count = 0
        while i < span.end {
            let byte = buffer[i]
            scratch[count] = byte
            count += 1
            i += byte == 0x22 ? 2 : 1
        }
        return UnsafeRawBufferPointer(rebasing: scratch[0..<count])
    }

    /// Reads the next record; nil at the end of the file. The record is valid until the next call.
    /// - Throws: ``CSVError``; after a recoverable one (``CSVError/isRecoverable``) the next call goes on
    ///   with the following record.
    public func next() throws(CSVError) -> CSVRecord? {
        longRecordPrefix = nil
        let parsed: Bool
        do {
            parsed = try parseRecord()
        } catch  where error.isRecoverable {
            // A record with a bad byte, or too long, was read: the file is not header-only.
            recordsRead += 1
            throw error
        }
        guard parsed else {
            if recordsRead == 0 && readsHeader { throw CSVError(path: path, line: line, kind: .headerOnly) }
            return nil
        }
        recordsRead += 1
        let count = fieldCount
        if count != header.count {
            if count > header.count {
                throw CSVError(
                    path: path, line: recordLine, column: header.count + 1, kind: .tooManyFields(expected: header.count, found: count))
            }
            throw CSVError(
                path: path, line: recordLine, column: count + 1, field: header[count],
                kind: .tooFewFields(expected: header.count, found: count))
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
            throw CSVError(
                path: path, line: 1, column: Self.maxFields + 1, kind: .tooManyFields(expected: Self.maxFields, found: fieldCount))
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
        dataOffset = bufferOrigin + start
        dataLine = line
    }

    /// Moves the unread bytes to the front, grows the buffer if a record fills it, and reads more.
    private func fill() throws(CSVError) {
        if start > 0 {
            memmove(storage, storage + start, end - start)
            end -= start
            bufferOrigin += start
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
            let position = origin + bytesRead
            let wanted = min(capacity - end, limit - position)
            let count =
                position >= limit
                ? 0 : parent == nil ? read(descriptor, storage + end, wanted) : pread(descriptor, storage + end, wanted, off_t(position))
            if count < 0 {
                if errno == EINTR { continue }
                throw CSVError(path: path, line: line, kind: .readFailed(String(cString: strerror(errno))))
            }
            if count == 0 {
                endOfFile = true
                try checkUnchanged()
                if hashes { sha256 = Data(hasher.finalize()).hexString }
            } else if hashes {
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
        let reachedEnd = origin + bytesRead
        let changed =
            fstat(descriptor, &now) != 0 || now.st_size != openedStatus.st_size
            || Self.modificationTime(now) != Self.modificationTime(openedStatus)
            || reachedEnd != (endsFile ? fileSize : limit)
        if changed {
            throw CSVError(path: path, line: line, kind: .changedWhileRead(opened: fileSize, read: reachedEnd, now: Int(now.st_size)))
        }
    }

    /// A file status's modification time in seconds and nanoseconds (`st_mtim` on Linux, `st_mtimespec` on Apple's systems).
    private static func modificationTime(_ status: stat) -> (seconds: Int, nanoseconds: Int) {
        #if canImport(Darwin)
            (Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec))
        #else
            (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
        #endif
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
                let blankFinalLine = fieldCount == 1 && recordEnd == recordStart && next >= end && endOfFile && endsFile
                start = next
                recordLine = line
                recordOffset = bufferOrigin + recordStart
                line += lines
                if blankFinalLine { return false }
                if start == end, !endOfFile, fieldCount == 1, recordEnd == recordStart {
                    // A blank line just before the buffer end: only a blank *final* line is ignored, so look ahead.
                    try fill()
                    if start == end && endOfFile && endsFile { return false }
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

extension CSVReader {
    /// Reads the next record only as far as ``SortedRuns/scan`` needs: where it starts
    /// (``recordOffset``, ``recordLine``) and the bytes of field `field`, passed to `body` (nil when the
    /// record has fewer fields). A record holding no quote and no carriage return is split at its line
    /// feed and not checked — the merged reading parses and checks every record; any other is parsed
    /// in full, with its errors. False at the end of the file.
    func skim(field: Int, _ body: (UnsafeRawBufferPointer?) -> Void) throws(CSVError) -> Bool {
        while true {
            if start == end {
                if endOfFile { return false }
                try fill()
                continue
            }
            let bytes = buffer
            var i = start
            var stop = -1
            while i + 8 <= end {
                let flags = Self.lineBytes(in: UInt64(littleEndian: UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)))
                if flags != 0 {
                    stop = i + flags.trailingZeroBitCount >> 3
                    break
                }
                i += 8
            }
            if stop < 0 {
                while i < end {
                    let byte = bytes[i]
                    if byte == 0x0A || byte == 0x0D || byte == 0x22 {
                        stop = i
                        break
                    }
                    i += 1
                }
            }
            if stop >= 0 && bytes[stop] == 0x0A {
                recordStart = start
                recordEnd = stop
                recordLine = line
                recordOffset = bufferOrigin + start
                line += 1
                var fieldStart = start
                for _ in 0..<field {
                    guard let comma = memchr(bytes + fieldStart, 0x2C, stop - fieldStart) else {
                        start = stop + 1
                        body(nil)
                        return true
                    }
                    fieldStart = bytes.distance(to: comma.assumingMemoryBound(to: UInt8.self)) + 1
                }
                let comma = memchr(bytes + fieldStart, 0x2C, stop - fieldStart)
                let fieldEnd = comma.map { bytes.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? stop
                start = stop + 1
                body(UnsafeRawBufferPointer(start: bytes + fieldStart, count: fieldEnd - fieldStart))
                return true
            }
            if stop < 0 && !endOfFile && end - start < maxRecordBytes {
                try fill()
                continue
            }
            // A quote, a carriage return, the last record, or one longer than the limit: parsed in full.
            longRecordPrefix = nil
            guard try parseRecord() else { return false }
            if fieldCount > field {
                CSVRecord(reader: self).withField(field) { body($0) }
            } else {
                body(nil)
            }
            return true
        }
    }
}
