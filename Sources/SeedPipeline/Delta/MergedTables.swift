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
        var bounds = [range.lowerBound.map { "\(keys) > \($0)" }, range.upperBound.map { "\(keys) <= \($0)" }].compactMap { $0 }.joined(separator: " AND ")
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
            let order = !hasNew ? 1 : !hasOld ? -1 : compareKeys(n, o)
            if order < 0 {
                tally?.added(n)
                try body(.insert(table: index, row: table.columns.indices.map(n.value)))
                hasNew = try newRows.next() != nil
            } else if order > 0 {
                tally?.removed(o)
                try body(.delete(table: index, key: table.keyColumns.map(o.value)))
                hasOld = try oldRows.next() != nil
            } else {
                let changes = others.compactMap { column in
                    Self.same(n, o, column) ? nil : DeltaChange(column: column, value: n.value(column))
                }
                if !changes.isEmpty {
                    tally?.changed(new: n, old: o, columns: changes.map(\.column))
                    try body(.update(table: index, key: table.keyColumns.map(n.value), changes: changes))
                }
                hasNew = try newRows.next() != nil
                hasOld = try oldRows.next() != nil
            }
        }
    }

    /// The new row's key against the old row's, column by column: negative when it sorts first.
    private func compareKeys(_ n: StoreConnection.Row, _ o: StoreConnection.Row) -> Int {
        for column in table.keyColumns {
            let order = Self.compare(n, o, column)
            if order != 0 { return order }
        }
        return 0
    }

    /// SQLite's order of storage classes: NULL, numbers, text, blobs.
    private static func classRank(_ type: StoreConnection.ColumnType) -> Int {
        switch type {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    static func compare(_ a: StoreConnection.Row, _ b: StoreConnection.Row, _ column: Int) -> Int {
        let (typeA, typeB) = (a.type(column), b.type(column))
        let (rankA, rankB) = (classRank(typeA), classRank(typeB))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch rankA {
        case 0:
            return 0
        case 1:
            if typeA == .integer, typeB == .integer {
                let (x, y) = (a.integer(column), b.integer(column))
                return x == y ? 0 : x < y ? -1 : 1
            }
            let (x, y) = (a.real(column), b.real(column))
            return x == y ? 0 : x < y ? -1 : 1
        default:
            return a.withBytes(column) { x in
                b.withBytes(column) { y in
                    let common = min(x.count, y.count)
                    if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                        let order = memcmp(p, q, common)
                        if order != 0 { return order < 0 ? -1 : 1 }
                    }
                    return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
                }
            }
        }
    }

    /// Whether a column holds the same value in both rows: the same type and the same bytes.
    static func same(_ a: StoreConnection.Row, _ b: StoreConnection.Row, _ column: Int) -> Bool {
        let type = a.type(column)
        guard type == b.type(column) else { return false }
        switch type {
        case .null: return true
        case .integer: return a.integer(column) == b.integer(column)
        case .real: return a.real(column).bitPattern == b.real(column).bitPattern
        case .text, .blob:
            return a.withBytes(column) { x in
                b.withBytes(column) { y in
                    guard x.count == y.count else { return false }
                    guard x.count > 0, let p = x.baseAddress, let q = y.baseAddress else { return true }
                    return memcmp(p, q, x.count) == 0
                }
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
