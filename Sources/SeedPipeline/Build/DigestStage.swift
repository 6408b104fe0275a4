import Foundation
import SeedStore

/// A table's content digest hashed while its rows are loaded, in the order ``ContentDigest`` reads
/// the table back: a keyed table's rows in key order (any row out of it spoils the digest, and the
/// table is read back), a rowid table's numbered 1, 2, 3… as SQLite numbers them — or, numbered
/// after a base release (``BaseNumbers``), its kept rows by their numbers, which must ascend, then
/// its new rows, numbered above the base's, in the order they came.
struct LoadDigest: ~Copyable {
    private var digest = TableDigest()
    private(set) var isHashing: Bool
    private let stored: [RowBatch.StoredForm]?
    private let numbersRows: Bool
    private var rowid: Int64 = 0
    /// The base's high-water mark when rows carry their numbers: rows above it are new.
    private let numberedAbove: Int64?
    /// The last new row's number: they must come in the order of their numbers.
    private var lastNew: Int64 = 0
    /// New rows, encoded as they come into `newRowBytes` and appended after the kept ones.
    private var newRows: TableDigest
    private let newRowBytes = EncodedRows()
    /// The new rows recorded at most: beyond, the table is read back instead.
    static let maxNewRowBytes = 16 << 20

    init(loader: EntityLoader) {
        let forms = loader.storedForms
        isHashing = forms != nil
        // Nil when every value is kept as bound, which keeps the hashing loop lean.
        stored = forms?.contains { $0 != .asBound } == true ? forms : nil
        numbersRows = loader.isRowidTable
        numberedAbove = loader.numbering?.highWater
        newRows = TableDigest { [newRowBytes] in newRowBytes.bytes.append(contentsOf: $0) }
    }

    /// The rows did not all go in: the table is read back.
    mutating func abandon() {
        isHashing = false
    }

    /// Hashes a batch the inserting thread is done with. A keyed table's row out of key order spoils
    /// the digest's order; a rowid table's rows are in its order whatever their keys.
    mutating func add(_ batch: RowBatch, arena: UnsafeRawBufferPointer) {
        for row in 0..<batch.count {
            if !numbersRows && batch.placements[row] != .direct { isHashing = false }
            guard isHashing else { return }
            if let numberedAbove {
                let number = batch.numbers[row]
                if number > numberedAbove {
                    // In the order of their numbers (rows held back past their limit come after later ones).
                    guard number > lastNew else {
                        isHashing = false
                        return
                    }
                    lastNew = number
                    newRows.append(integer: number)
                    batch.hash(row: row, into: &newRows, arena: arena, stored: stored)
                    newRows.flush()
                    if newRowBytes.bytes.count > Self.maxNewRowBytes { isHashing = false }
                    continue
                }
                // Kept rows out of their numbers' order: the table is read back.
                guard number > rowid else {
                    isHashing = false
                    return
                }
                rowid = number
                digest.append(integer: number)
            } else if numbersRows {
                rowid += 1
                digest.append(integer: rowid)
            }
            batch.hash(row: row, into: &digest, arena: arena, stored: stored)
        }
    }

    mutating func finalize() -> Data? {
        guard isHashing else { return nil }
        if numberedAbove != nil {
            newRows.flush()
            digest.appendRaw(newRowBytes.bytes)
        }
        return digest.finalize()
    }
}

/// Hashes the loaded batches on a thread of its own, in the order they went in, and gives each back
/// to the channel once hashed: neither loading thread spends time on the digest.
///
/// Both loading threads are busy on two cores: hashing took 10% of the producer's samples in the plain
/// layout and 13% of the inserting thread's in Core Data's, whichever of the two was the slower.
///
/// Safe to share: `digest`, its one mutable property, is touched only on the serial `queue`; the rest are `let`s.
final class DigestStage: @unchecked Sendable {
    private let loader: EntityLoader
    private let channel: BatchChannel
    private let queue = DispatchQueue(label: "seedbuild.digest")
    /// Touched only on `queue`.
    private var digest: LoadDigest

    init(loader: EntityLoader, channel: BatchChannel) {
        self.loader = loader
        self.channel = channel
        digest = LoadDigest(loader: loader)
    }

    /// Inserting thread: hands over a batch it has inserted. `intact` is false once a row failed to go
    /// in (the table is read back then); the batch after a restart starts a new digest.
    func submit(_ batch: RowBatch, intact: Bool) {
        queue.async { [self] in
            if batch.restartBelowLine != nil { digest = LoadDigest(loader: loader) }
            if !intact { digest.abandon() }
            if digest.isHashing { batch.withArena { digest.add(batch, arena: $0) } }
            channel.release(batch)
        }
    }

    /// Inserting thread, after the last batch: the digest of every row, or nil.
    func finish() -> Data? {
        queue.sync { digest.finalize() }
    }
}

/// The bytes of rows encoded ahead of their place in a table's digest.
private final class EncodedRows {
    var bytes: [UInt8] = []
}
