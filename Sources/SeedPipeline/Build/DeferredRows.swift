/// Rows of a build following a base that come out of the base's order, held back by the producer
/// and sent after the rest of the file in the order of their numbers (``EntityLoader/produce``).
///
/// A new row is numbered above every number of the base, and a row an earlier night added between
/// others has a number above the rows around it: inserted where it comes in the file, each later row
/// would go in below the table's highest key, where SQLite splits pages in half instead of filling
/// them (1M rows: a store 8% larger, slower to load and index, and its digest read back). Held back
/// and sorted, every row is appended and hashed as it goes in. Only so many are held: past
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

    /// Writes the rows held back into `writer`'s batches, by number (new rows in the order they came).
    func send(to writer: BatchWriter) throws {
        let order = rows.indices.sorted { rows[$0].number < rows[$1].number }
        try bytes.withUnsafeBytes { held in
            for index in order {
                let row = rows[index]
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
