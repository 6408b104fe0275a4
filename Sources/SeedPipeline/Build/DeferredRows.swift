/// New rows of a build following a base, held back by the producer and sent after the rest of the
/// file (``EntityLoader/produce``).
///
/// A new row is numbered above every number of the base, so inserted where it comes in the file it
/// would sit above the rows still to come: each later row would then go in below the table's highest
/// key, where SQLite splits pages in half instead of filling them (1M rows: a store 8% larger, and
/// slower to load and index). Held back, every row is appended. Only so many are held: past
/// ``maxBytes`` the rest go in where they come, which is slower but the same table.
struct DeferredRows {
    static let maxBytes = 32 << 20

    private var slots: [RowBatch.Slot] = []
    private var bytes: [UInt8] = []
    private var rows: [(line: Int, placement: RowBatch.Placement, number: Int64)] = []
    let width: Int

    init(width: Int) {
        self.width = width
    }

    var isEmpty: Bool { rows.isEmpty }

    /// Copies the row being written into `batch` (not committed there); false when full.
    mutating func take(_ batch: RowBatch, line: Int, placement: RowBatch.Placement, number: Int64) -> Bool {
        guard bytes.count + slots.count * MemoryLayout<RowBatch.Slot>.stride < Self.maxBytes else { return false }
        for column in 0..<width {
            let (slot, arena) = batch.pending(column)
            switch slot {
            case .text(let start, let count):
                slots.append(.text(start: bytes.count, count: count))
                bytes.append(contentsOf: arena[start..<(start + count)])
            case .blob(let start, let count):
                slots.append(.blob(start: bytes.count, count: count))
                bytes.append(contentsOf: arena[start..<(start + count)])
            default:
                slots.append(slot)
            }
        }
        rows.append((line, placement, number))
        return true
    }

    /// Writes the rows held back into `writer`'s batches, in the order they came.
    func send(to writer: BatchWriter) throws {
        try bytes.withUnsafeBytes { held in
            for (index, row) in rows.enumerated() {
                let batch = writer.batch
                batch.beginRow()
                for column in 0..<width {
                    switch slots[index * width + column] {
                    case .text(let start, let count): batch.setText(column, UnsafeRawBufferPointer(rebasing: held[start..<(start + count)]))
                    case .blob(let start, let count): batch.setBlob(column, UnsafeRawBufferPointer(rebasing: held[start..<(start + count)]))
                    case let slot: batch.set(column, slot)
                    }
                }
                try writer.commit(line: row.line, placement: row.placement, number: row.number)
            }
        }
    }
}
