import Foundation
import SeedModel
import SeedStore

/// Where a load reads its records from: a ``CSVReader``, or ``MergedRuns`` over one file's sorted runs.
protocol CSVRecordSource: AnyObject {
    /// The next record, valid until the next call; nil at the end.
    func next() throws(CSVError) -> CSVRecord?
    /// After a recoverable error, the record at fault as it stands in the file.
    var lastRecordBytes: [UInt8] { get }
    /// Bytes read so far, for progress.
    var bytesRead: Int { get }
}

extension CSVReader: CSVRecordSource {}

/// A key field's value as a `WITHOUT ROWID` table orders it: numbers numerically, text and blobs by
/// their bytes (SQLite's BINARY collation). `none` when the field is empty or does not convert —
/// the row is then rejected or takes a default, and its place in the order does not matter. The
/// order only decides how fast rows go in: the load's own key tracking keeps the table right.
///
/// The bytes live in memory the key owns and its owner frees (``release()``): a key is refilled
/// for every record of a merge, and an array would be checked and counted each time.
struct SortKey {
    enum Kind: UInt8 { case none, integer, real, bytes }
    private(set) var kind = Kind.none
    private var integer: Int64 = 0
    private var real: Double = 0
    private var storage: UnsafeMutablePointer<UInt8>?
    private var count = 0
    private var capacity = 0

    /// Reads field `field` of `record` as `type`, reusing this key's memory. A text key is its
    /// field's bytes (a valid text field is stored as it stands).
    mutating func load(_ record: CSVRecord, field: Int, type: AttributeType) {
        kind = .none
        guard !record.isEmpty(field) else { return }
        record.withField(field) { load($0, type: type) }
    }

    /// Reads a field's bytes as `type`.
    mutating func load(_ raw: UnsafeRawBufferPointer, type: AttributeType) {
        kind = .none
        if raw.isEmpty { return }
        if type == .string {
            setBytes(raw)
            return
        }
        guard case .success(let value) = FieldConverter.convert(raw, as: type) else { return }
        switch value {
        case .integer(let number):
            kind = .integer
            integer = number
        case .real(let number):
            kind = .real
            real = number
        case .fieldText: setBytes(raw)
        case .text(var text): text.withUTF8 { setBytes(UnsafeRawBufferPointer($0)) }
        case .blob(let blob): blob.withUnsafeBytes { setBytes($0) }
        }
    }

    /// Makes this key one with no value.
    mutating func clear() { kind = .none }

    /// Makes this key equal to `other`, in this key's own memory.
    mutating func copy(_ other: SortKey) {
        kind = other.kind
        integer = other.integer
        real = other.real
        if other.kind == .bytes { setBytes(UnsafeRawBufferPointer(start: other.storage, count: other.count)) }
    }

    private mutating func setBytes(_ raw: UnsafeRawBufferPointer) {
        kind = .bytes
        if raw.count > capacity {
            storage?.deallocate()
            capacity = max(raw.count, 32)
            storage = .allocate(capacity: capacity)
        }
        count = raw.count
        if let base = raw.baseAddress, count > 0 { storage!.update(from: base.assumingMemoryBound(to: UInt8.self), count: count) }
    }

    /// Frees the key's memory; the key is not used again.
    func release() { storage?.deallocate() }

    /// Whether this key sorts before `other`; a key with no value before any other.
    func precedes(_ other: SortKey) -> Bool {
        switch (kind, other.kind) {
        case (.bytes, .bytes):
            let common = min(count, other.count)
            let prefix = common == 0 ? 0 : memcmp(storage!, other.storage!, common)
            return prefix != 0 ? prefix < 0 : count < other.count
        case (.none, .none): return false
        case (.none, _): return true
        case (_, .none): return false
        case (.integer, .integer): return integer < other.integer
        case (.real, .real): return real < other.real
        default: return false
        }
    }
}

/// The ascending runs of a keyed table's file, found by reading on from its first descent, so
/// ``MergedRuns`` can hand its rows over in key order.
///
/// Naturally sorted postcodes (AB1 … AB9, AB10 … AB99, AL1 …) climb in about a hundred runs, each
/// lying partly below the one before (AB10 sorts between AB1 and AB2). Inserted as they come, each
/// run lands in the middle of the table, where SQLite's b-tree splits full pages among their
/// neighbours, and the table's digest must be read back in key order after the load. Merged, every
/// row is appended above the last and hashed as it goes in.
final class SortedRuns {
    /// Where each run starts in the file and on which line; each ends where the next starts.
    struct Run {
        var offset: Int
        var line: Int
        /// The first keyed row's key (`none` for the first run, whose rows were read before the scan).
        var firstKey: SortKey
    }

    /// More runs than this and the file is too shuffled to merge: each run open at once holds a buffer.
    static let maxRuns = 256
    /// Runs are merged only when the first descent comes within the first 1/this of the file: the
    /// rows before it are read and inserted a second time.
    static let earlyDescentFraction = 8
    /// A run's read buffer; it grows for a longer record.
    static let bufferSize = 64 << 10

    let runs: [Run]
    /// One past the last byte of the file's records (its size).
    let end: Int

    private init(runs: [Run], end: Int) {
        self.runs = runs
        self.end = end
    }

    deinit {
        for run in runs { run.firstKey.release() }
    }

    /// Reads `reader` on to the end of its file, from the record after the descent at `descent`
    /// (offset and line, key `key`, which the runs take over), noting where each run starts. Nil when
    /// the file has more than ``maxRuns`` runs, or a structural error stops the reading (the records
    /// are then read again in order, which reports it in its place), or `isCancelled` turns true (it
    /// is asked every 65,536 records: the inserting thread failed). Unless its hashing was handed off
    /// (``CSVReader/handOffHash()``), the reader's SHA-256 is the whole file's once this returns runs.
    static func scan(
        _ reader: CSVReader, descent: (offset: Int, line: Int), key: SortKey, field: Int, type: AttributeType,
        isCancelled: () -> Bool = { false }
    ) -> SortedRuns? {
        var runs = [
            Run(offset: reader.dataOffset, line: reader.dataLine, firstKey: SortKey()),
            Run(offset: descent.offset, line: descent.line, firstKey: key),
        ]
        var previous = SortKey()
        previous.copy(key)
        var current = SortKey()
        defer {
            previous.release()
            current.release()
        }
        var skimmed = 0
        while true {
            skimmed += 1
            if skimmed & 0xFFFF == 0 && isCancelled() {
                for run in runs { run.firstKey.release() }
                return nil
            }
            do {
                guard
                    try reader.skim(
                        field: field,
                        { raw in
                            if let raw { current.load(raw, type: type) } else { current.clear() }
                        })
                else { break }
            } catch  where error.isRecoverable {
                continue
            } catch {
                for run in runs { run.firstKey.release() }
                return nil
            }
            guard current.kind != .none else { continue }
            if current.precedes(previous) {
                guard runs.count < maxRuns else {
                    for run in runs { run.firstKey.release() }
                    return nil
                }
                var first = SortKey()
                first.copy(current)
                runs.append(Run(offset: reader.recordOffset, line: reader.recordLine, firstKey: first))
            }
            swap(&previous, &current)
        }
        return SortedRuns(runs: runs, end: reader.fileSize)
    }
}

/// The records of a file's ``SortedRuns`` in key order: each run read by its own ``CSVReader``
/// segment, opened when its first key comes up and closed at its end (natural order keeps two or
/// three open), the smallest current key handed out next. Equal keys come out in file order, so a
/// duplicate is reported against the earlier line, as in a file read straight through. A record
/// without a usable key, or a recoverable error, comes out at once: it is rejected wherever it falls.
final class MergedRuns: CSVRecordSource {
    private let parent: CSVReader
    private let plan: SortedRuns
    private let field: Int
    private let type: AttributeType
    private let runCount: Int
    // Per run, and the heap: raw memory, refilled for every record without array checks.
    @exclusivity(unchecked) private var readers: [CSVReader?]
    private let records: UnsafeMutablePointer<CSVRecord?>
    private let keys: UnsafeMutablePointer<SortKey>
    /// Run indices, a binary heap on (key, index).
    private let heap: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var heapCount = 0
    /// The run at the heap's top whose record was handed out: advanced on the next call.
    @exclusivity(unchecked) private var handedOut: Int?
    /// The run that last returned a record or threw.
    @exclusivity(unchecked) private var lastRun = 0
    @exclusivity(unchecked) private var closedBytes = 0

    private let bufferSize: Int

    init(_ plan: SortedRuns, of parent: CSVReader, field: Int, type: AttributeType, bufferSize: Int = SortedRuns.bufferSize) {
        self.parent = parent
        self.bufferSize = bufferSize
        self.plan = plan
        self.field = field
        self.type = type
        runCount = plan.runs.count
        readers = Array(repeating: nil, count: runCount)
        records = .allocate(capacity: runCount)
        records.initialize(repeating: nil, count: runCount)
        keys = .allocate(capacity: runCount)
        heap = .allocate(capacity: runCount)
        for run in 0..<runCount {
            var key = SortKey()
            key.copy(plan.runs[run].firstKey)
            (keys + run).initialize(to: key)
            push(run)
        }
    }

    deinit {
        for run in 0..<runCount { keys[run].release() }
        keys.deinitialize(count: runCount)
        keys.deallocate()
        records.deinitialize(count: runCount)
        records.deallocate()
        heap.deallocate()
    }

    var bytesRead: Int {
        closedBytes + readers.reduce(0) { $0 + ($1?.bytesRead ?? 0) }
    }

    var lastRecordBytes: [UInt8] { readers[lastRun]?.lastRecordBytes ?? [] }

    func next() throws(CSVError) -> CSVRecord? {
        while true {
            if let run = handedOut {
                handedOut = nil
                if let unkeyed = try advance(run) { return unkeyed }
                continue
            }
            guard heapCount > 0 else { return nil }
            let top = heap[0]
            if readers[top] == nil {
                // A run whose first key came up: open it and read its first record into place.
                let range = plan.runs[top].offset..<(top + 1 < runCount ? plan.runs[top + 1].offset : plan.end)
                readers[top] = CSVReader(segmentOf: parent, range: range, line: plan.runs[top].line, bufferSize: bufferSize)
                if let unkeyed = try advance(top) { return unkeyed }
                continue
            }
            handedOut = top
            lastRun = top
            return records[top]
        }
    }

    /// Reads the next record of `run` (at the heap's top) and moves the run to its place, or drops it
    /// at its end. Returns the record when it has no usable key: it goes out before any other.
    private func advance(_ run: Int) throws(CSVError) -> CSVRecord? {
        lastRun = run
        let reader = readers[run]!
        let record: CSVRecord?
        do {
            record = try reader.next()
        } catch {
            // The reader goes on with the following record next time.
            if error.isRecoverable { handedOut = run }
            throw error
        }
        guard let record else {
            closedBytes += reader.bytesRead
            readers[run] = nil
            records[run] = nil
            heapCount -= 1
            if heapCount > 0 {
                heap[0] = heap[heapCount]
                siftDown()
            }
            return nil
        }
        keys[run].load(record, field: field, type: type)
        if keys[run].kind == .none {
            handedOut = run
            return record
        }
        records[run] = record
        siftDown()
        return nil
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        keys[a].precedes(keys[b]) || (!keys[b].precedes(keys[a]) && a < b)
    }

    private func push(_ run: Int) {
        var child = heapCount
        heap[child] = run
        heapCount += 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { break }
            (heap[child], heap[parent]) = (heap[parent], heap[child])
            child = parent
        }
    }

    /// Moves the top run down to its place.
    private func siftDown() {
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heapCount else { return }
            var smallest = left
            if left + 1 < heapCount && precedes(heap[left + 1], heap[left]) { smallest = left + 1 }
            guard precedes(heap[smallest], heap[parent]) else { return }
            (heap[smallest], heap[parent]) = (heap[parent], heap[smallest])
            parent = smallest
        }
    }
}
