import Foundation
import SeedStore

/// Converted rows handed from the parsing thread to the SQLite thread, text copied into one arena.
///
/// Safe to send: a batch is used by one thread at a time — filled by the producer, then read by the inserting thread,
/// then by the digest's — handed on through ``BatchChannel``'s semaphores and ``DigestStage``'s queue.
final class RowBatch: @unchecked Sendable {
    enum Slot {
        case null
        case integer(Int64)
        case real(Double)
        case text(start: Int, count: Int)
        case blob(start: Int, count: Int)
    }

    static let capacity = 4096

    let width: Int
    // Filled per field on the producer thread, then read per row on the inserting thread's and on the
    // digest's, one after the other, never at once (the channel and the digest stage hand a batch over). Fixed buffers rather than arrays: an array checks that it is
    // uniquely referenced on every write, and its generic append(contentsOf:) cost as much again.
    @exclusivity(unchecked) private(set) var count = 0
    let slots: UnsafeMutablePointer<Slot>
    let lines: UnsafeMutablePointer<Int>
    let placements: UnsafeMutablePointer<Placement>
    /// Each row's primary key, when the producer numbers rows (``BaseNumbers``); 0 otherwise.
    let numbers: UnsafeMutablePointer<Int64>
    /// The text and blobs of the rows, `arenaCount` bytes, grown by doubling when a batch needs more.
    @exclusivity(unchecked) private var arenaBase: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var arenaCount = 0
    /// The arena's bytes up to the last committed row.
    @exclusivity(unchecked) private var committedArena = 0
    @exclusivity(unchecked) private var arenaCapacity = 1 << 18
    /// Set on the producer's last batch.
    var isLast = false
    /// Set on the first batch after the producer started the file over (``EntityLoader/produce``):
    /// the table is emptied before its rows go in, and rows below this line are not rejected again.
    var restartBelowLine: Int?
    /// A producer failure, delivered in order after the rows before it.
    var failure: Error?

    init(width: Int) {
        self.width = width
        let cells = Self.capacity * max(width, 1)
        slots = .allocate(capacity: cells)
        slots.initialize(repeating: .null, count: cells)
        lines = .allocate(capacity: Self.capacity)
        lines.initialize(repeating: 0, count: Self.capacity)
        placements = .allocate(capacity: Self.capacity)
        placements.initialize(repeating: .direct, count: Self.capacity)
        numbers = .allocate(capacity: Self.capacity)
        numbers.initialize(repeating: 0, count: Self.capacity)
        arenaBase = .allocate(byteCount: arenaCapacity, alignment: 16)
    }

    deinit {
        slots.deinitialize(count: Self.capacity * max(width, 1))
        slots.deallocate()
        lines.deallocate()
        placements.deallocate()
        numbers.deallocate()
        arenaBase.deallocate()
    }

    var isFull: Bool { count == Self.capacity }

    func reset() {
        count = 0
        arenaCount = 0
        committedArena = 0
        isLast = false
        restartBelowLine = nil
        failure = nil
    }

    /// The rows' text and blobs, which slots address by offset; valid until the batch is refilled.
    func withArena<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: arenaBase, count: arenaCount))
    }

    /// Copies `bytes` to the end of the arena; returns where they start.
    private func store(_ bytes: UnsafeRawBufferPointer) -> Int {
        let start = arenaCount
        if start + bytes.count > arenaCapacity {
            var capacity = arenaCapacity * 2
            while start + bytes.count > capacity { capacity *= 2 }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            grown.copyMemory(from: arenaBase, byteCount: start)
            arenaBase.deallocate()
            arenaBase = grown
            arenaCapacity = capacity
        }
        if let source = bytes.baseAddress, !bytes.isEmpty { (arenaBase + start).copyMemory(from: source, byteCount: bytes.count) }
        arenaCount = start + bytes.count
        return start
    }

    /// Producer: starts the row after the last committed one, dropping whatever a row left
    /// uncommitted (one that failed to convert) wrote into the arena. Its values are then written
    /// column by column (``set(_:_:)``, ``setText(_:_:)``, ``set(_:value:record:field:)``), and
    /// ``commitRow(line:placement:)`` adds it. Writing straight into the batch, rather than into a
    /// row of enum values copied across afterwards, saves the producer a copy and its reference
    /// counting per value.
    func beginRow() {
        arenaCount = committedArena
    }

    func set(_ column: Int, _ slot: Slot) {
        slots[count * width + column] = slot
    }

    /// Sets `column` of the row being written to a copy of `bytes` as TEXT (the reader's buffer moves on).
    func setText(_ column: Int, _ bytes: UnsafeRawBufferPointer) {
        slots[count * width + column] = .text(start: store(bytes), count: bytes.count)
    }

    /// Sets `column` of the row being written to a copy of `bytes` as a BLOB.
    func setBlob(_ column: Int, _ bytes: UnsafeRawBufferPointer) {
        slots[count * width + column] = .blob(start: store(bytes), count: bytes.count)
    }

    /// Sets `column` of the row being written to any converted value: `.fieldText` is the record's
    /// field `field`.
    func set(_ column: Int, value: FieldValue, record: CSVRecord, field: Int?) {
        switch value {
        case .integer(let number): set(column, .integer(number))
        case .real(let number): set(column, .real(number))
        case .text(var text): text.withUTF8 { setText(column, UnsafeRawBufferPointer($0)) }
        case .blob(let bytes): set(column, .blob(start: bytes.withUnsafeBytes { store($0) }, count: bytes.count))
        case .fieldText:
            if let field {
                record.withField(field) { setText(column, $0) }
            } else {
                set(column, .null)
            }
        }
    }

    /// The value set in `column` of the row being written, and the arena it points into.
    func pending(_ column: Int) -> (slot: Slot, arena: UnsafeRawBufferPointer) {
        (slots[count * width + column], UnsafeRawBufferPointer(start: arenaBase, count: arenaCount))
    }

    /// Adds the row being written.
    func commitRow(line: Int, placement: Placement, number: Int64 = 0) {
        lines[count] = line
        placements[count] = placement
        numbers[count] = number
        count += 1
        committedArena = arenaCount
    }

    /// Feeds row `row` to a table digest, in column order, as ``ContentDigest`` encodes stored values.
    /// - Parameter stored: per column, how the `INSERT` changes the bound value before SQLite keeps it
    ///   (Core Data's layout), so the digest is of what the table holds.
    ///   Nil when every value is kept as bound (the plain layout), which keeps this loop as lean as the load's.
    func hash(row: Int, into digest: inout TableDigest, arena pointer: UnsafeRawBufferPointer, stored: [StoredForm]?) {
        let base = row * width
        for index in 0..<width {
            let slot = slots[base + index]
            if let stored, stored[index] != .asBound, Self.hashStored(slot, form: stored[index], into: &digest, arena: pointer) { continue }
            switch slot {
            case .null: digest.appendNull()
            case .integer(let number): digest.append(integer: number)
            case .real(let number): digest.append(real: number)
            case .text(let start, let count): digest.append(text: UnsafeRawBufferPointer(rebasing: pointer[start..<(start + count)]))
            case .blob(let start, let count): digest.append(blob: UnsafeRawBufferPointer(rebasing: pointer[start..<(start + count)]))
            }
        }
    }

    /// Hashes a value in the form its column keeps it, when that differs from the bound one; false
    /// when it is kept as bound (a NULL, a UUID that does not parse).
    private static func hashStored(_ slot: Slot, form: StoredForm, into digest: inout TableDigest, arena pointer: UnsafeRawBufferPointer)
        -> Bool
    {
        switch (form, slot) {
        case (.uuidBytes, .text(let start, let count)):
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: pointer[start..<(start + count)]), as: UTF8.self)
            guard let uuid = UUID(uuidString: text) else { return false }
            withUnsafeBytes(of: uuid.uuid) { digest.append(blob: $0) }
            return true
        case (.inlineMarker, .blob(let start, let count)):
            let marked = [UInt8(0x01)] + Array(pointer[start..<(start + count)])
            marked.withUnsafeBytes { digest.append(blob: $0) }
            return true
        default:
            return false
        }
    }

    /// Where a row goes.
    enum Placement: UInt8 {
        /// Into the table above every key before it: appended, several to a statement.
        case direct
        /// Into the table below the highest key so far, above the row before's key: with the rows of
        /// its run, several to a statement when the table holds no key between their first and last.
        case run
        /// Like `run`, but below the row before's key: the first row of a run.
        case descent
        /// Into the staging table (the input is shuffled), copied across in key order at the end.
        case staged
    }

    /// How the rows of a range can go in together.
    enum RangeOrder {
        /// Every row above every key before it.
        case appending
        /// Keys strictly ascending through the range, some below keys the table holds already.
        case ascending
        /// Every row staged.
        case staged
    }

    /// How `rows` can go into the table several to a statement; nil when they cannot (staged and
    /// unstaged rows mixed, or a run starting inside the range, so the keys do not ascend throughout).
    func order(of rows: Range<Int>) -> RangeOrder? {
        if placements[rows.lowerBound] == .staged {
            for row in rows where placements[row] != .staged { return nil }
            return .staged
        }
        var order = RangeOrder.appending
        for row in rows {
            switch placements[row] {
            case .direct: continue
            case .run: order = .ascending
            case .descent where row == rows.lowerBound: order = .ascending
            case .descent, .staged: return nil
            }
        }
        return order
    }

    /// How a bound value is kept in its column.
    enum StoredForm {
        case asBound
        /// A UUID's text kept as its 16 bytes.
        case uuidBytes
        /// Bytes kept after Core Data's inline marker `01`.
        case inlineMarker
    }

    /// Binds row `row` to an insert; the arena must stay untouched until the insert has stepped.
    /// - Parameters:
    ///   - columns: the columns bound, in parameter order (the others are literals in the SQL).
    ///   - offset: parameters before this row's, for a statement that inserts several rows.
    func bind(row: Int, columns: UnsafeBufferPointer<Int>, to insert: BulkInsert, arena pointer: UnsafeRawBufferPointer, offset: Int = 0) {
        for (index, column) in columns.enumerated() {
            bind(row: row, column: column, to: insert, parameter: Int32(offset + index + 1), arena: pointer)
        }
    }

    /// Binds one value of row `row` to parameter `parameter` (from 1).
    func bind(row: Int, column: Int, to insert: BulkInsert, parameter: Int32, arena pointer: UnsafeRawBufferPointer) {
        switch slots[row * width + column] {
        case .null: insert.bindNull(parameter)
        case .integer(let number): insert.bind(parameter, number)
        case .real(let number): insert.bind(parameter, number)
        case .text(let start, let count):
            insert.bindText(parameter, UnsafeRawBufferPointer(rebasing: pointer[start..<(start + count)]))
        case .blob(let start, let count):
            insert.bindBlob(parameter, Array(pointer[start..<(start + count)]))
        }
    }
}

/// A bounded ring of batches: one producer fills them, one consumer receives them in order, and
/// they come back (``release(_:)``) in the same order, from whichever thread finished with them.
///
/// Safe to share: `produced` is touched only by the producer's thread and `received` only by the consumer's; batches
/// pass between them through the `empty`/`full` semaphores; `cancelled` is read and written under `lock`.
final class BatchChannel: @unchecked Sendable {
    private let batches: [RowBatch]
    private let empty: DispatchSemaphore
    private let full = DispatchSemaphore(value: 0)
    private var produced = 0
    private var received = 0
    private let lock = NSLock()
    private var cancelled = false

    init(width: Int, depth: Int = 3) {
        batches = (0..<depth).map { _ in RowBatch(width: width) }
        empty = DispatchSemaphore(value: depth)
    }

    /// Producer: the next batch to fill.
    func nextEmpty() -> RowBatch {
        empty.wait()
        let batch = batches[produced % batches.count]
        batch.reset()
        return batch
    }

    /// Producer: hands a filled batch over.
    func send(_ batch: RowBatch) {
        produced += 1
        full.signal()
    }

    /// Consumer: the next filled batch, in order.
    func receive() -> RowBatch {
        full.wait()
        defer { received += 1 }
        return batches[received % batches.count]
    }

    /// Gives back the oldest batch received and not yet released: callers release in the order received.
    func release(_ batch: RowBatch) {
        empty.signal()
    }

    /// Consumer: asks the producer to stop early (after a consumer failure).
    func cancel() {
        lock.withLock { cancelled = true }
    }

    var isCancelled: Bool {
        lock.withLock { cancelled }
    }
}
