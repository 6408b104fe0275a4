import Foundation
import GRDB
import SeedInstall

/// A table of the new store (`main`) and the base (`base`) read side by side in key order, each row
/// of one matched with the row of the other that has its key: the row operations between them, as
/// they are found (deletes, inserts and updates interleaved, each kind in key order).
///
/// Keys are compared as SQLite's `ORDER BY` compares them with the BINARY collation (the only one a
/// seed store's keys use): NULL first, then numbers by value, text by bytes, blobs by bytes.
struct MergedTables {
    let table: DeltaTable
    /// The table's place in the delta's header, which operations name.
    let index: Int
    private let db: Database
    private let new: Statement
    private let old: Statement

    /// - Parameter keys: for a table keyed by one integer column, the part of its keys to read:
    ///   above `lowerBound` (exclusive), up to `upperBound` (inclusive); nil bounds are open.
    init(table: DeltaTable, index: Int, db: Database, keys range: (lowerBound: Int64?, upperBound: Int64?) = (nil, nil)) throws {
        self.table = table
        self.index = index
        self.db = db
        let name = quoteIdentifier(table.name)
        let columns = table.columns.map(quoteIdentifier).joined(separator: ", ")
        let keys = table.keyColumns.map { quoteIdentifier(table.columns[$0]) }.joined(separator: ", ")
        var bounds = [range.lowerBound.map { "\(keys) > \($0)" }, range.upperBound.map { "\(keys) <= \($0)" }].compactMap { $0 }.joined(
            separator: " AND ")
        if !bounds.isEmpty { bounds = " WHERE " + bounds }
        new = try db.makeStatement(sql: "SELECT \(columns) FROM main.\(name)\(bounds) ORDER BY \(keys)")
        old = try db.makeStatement(sql: "SELECT \(columns) FROM base.\(name)\(bounds) ORDER BY \(keys)")
    }

    /// Calls `body` with each operation, in key order within each kind.
    func run(_ body: (DeltaOperation) throws -> Void) throws {
        var tally: ChangeTally?
        try run(tally: &tally, body)
    }

    /// ``run(_:)``, counting each operation in `tally` (``ChangeReport``) from the rows it reads anyway.
    func run(tally: inout ChangeTally?, _ body: (DeltaOperation) throws -> Void) throws {
        // GRDB steps (and resets) the statements; their rows are read in place, without a value per column.
        let (newRows, oldRows) = (try Row.fetchCursor(new), try Row.fetchCursor(old))
        let (n, o) = (StoreConnection.Row(borrowing: new.sqliteStatement), StoreConnection.Row(borrowing: old.sqliteStatement))
        var hasNew = try newRows.next() != nil
        var hasOld = try oldRows.next() != nil
        let others = table.columns.indices.filter { !table.keyColumns.contains($0) }
        while hasNew || hasOld {
            let order = !hasNew ? 1 : !hasOld ? -1 : n.compare(table.keyColumns, with: o)
            if order < 0 {
                tally?.added(n)
                try body(.insert(table: index, row: table.columns.indices.map(n.value)))
                hasNew = try newRows.next() != nil
            } else if order > 0 {
                tally?.removed(o)
                try body(.delete(table: index, key: table.keyColumns.map(o.value)))
                hasOld = try oldRows.next() != nil
            } else {
                let changes = n.differing(others, from: o).map { DeltaChange(column: $0, value: n.value($0)) }
                if !changes.isEmpty {
                    tally?.changed(new: n, old: o, columns: changes.map(\.column))
                    try body(.update(table: index, key: table.keyColumns.map(n.value), changes: changes))
                }
                hasNew = try newRows.next() != nil
                hasOld = try oldRows.next() != nil
            }
        }
    }
}

extension DeltaOperation {
    /// Deletes 0, inserts 1, updates 2 (clears do not come from a merge).
    var kind: Int {
        switch self {
        case .clear: -1
        case .delete: 0
        case .insert: 1
        case .update: 2
        }
    }

    /// About what the operation holds in memory, to bound what a diff keeps.
    var approximateBytes: Int {
        func size(_ values: [DeltaValue]) -> Int {
            values.reduce(16) { total, value in
                switch value {
                case .text(let text): total + 24 + text.utf8.count
                case .blob(let bytes): total + 24 + bytes.count
                default: total + 16
                }
            }
        }
        switch self {
        case .clear: return 16
        case .delete(_, let key): return size(key)
        case .insert(_, let row): return size(row)
        case .update(_, let key, let changes): return size(key) + size(changes.map(\.value))
        }
    }
}
