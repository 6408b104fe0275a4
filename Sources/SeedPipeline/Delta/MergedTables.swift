import Foundation
import GRDB
import SeedInstall
#if canImport(SQLite3)
import SQLite3
#elseif canImport(GRDBSQLite)
import GRDBSQLite
#endif

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
        let (n, o) = (new.sqliteStatement, old.sqliteStatement)
        defer {
            sqlite3_reset(n)
            sqlite3_reset(o)
        }
        var hasNew = try step(n)
        var hasOld = try step(o)
        let others = table.columns.indices.filter { !table.keyColumns.contains($0) }
        while hasNew || hasOld {
            let order = !hasNew ? 1 : !hasOld ? -1 : compareKeys(n, o)
            if order < 0 {
                tally?.added(n)
                try body(.insert(table: index, row: table.columns.indices.map { Self.value(n, Int32($0)) }))
                hasNew = try step(n)
            } else if order > 0 {
                tally?.removed(o)
                try body(.delete(table: index, key: table.keyColumns.map { Self.value(o, Int32($0)) }))
                hasOld = try step(o)
            } else {
                let changes = others.compactMap { column in
                    Self.same(n, o, Int32(column)) ? nil : DeltaChange(column: column, value: Self.value(n, Int32(column)))
                }
                if !changes.isEmpty {
                    tally?.changed(new: n, old: o, columns: changes.map(\.column))
                    try body(.update(table: index, key: table.keyColumns.map { Self.value(n, Int32($0)) }, changes: changes))
                }
                hasNew = try step(n)
                hasOld = try step(o)
            }
        }
    }

    private func step(_ statement: OpaquePointer?) throws -> Bool {
        let code = sqlite3_step(statement)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sqlite3_sql(statement).map { String(cString: $0) })
    }

    /// The new row's key against the old row's, column by column: negative when it sorts first.
    private func compareKeys(_ n: OpaquePointer?, _ o: OpaquePointer?) -> Int {
        for column in table.keyColumns {
            let order = Self.compare(n, o, Int32(column))
            if order != 0 { return order }
        }
        return 0
    }

    /// SQLite's order of storage classes: NULL, numbers, text, blobs.
    private static func classRank(_ type: Int32) -> Int {
        switch type {
        case SQLITE_NULL: 0
        case SQLITE_INTEGER, SQLITE_FLOAT: 1
        case SQLITE_TEXT: 2
        default: 3
        }
    }

    static func compare(_ a: OpaquePointer?, _ b: OpaquePointer?, _ column: Int32) -> Int {
        let (typeA, typeB) = (sqlite3_column_type(a, column), sqlite3_column_type(b, column))
        let (rankA, rankB) = (classRank(typeA), classRank(typeB))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch rankA {
        case 0:
            return 0
        case 1:
            if typeA == SQLITE_INTEGER, typeB == SQLITE_INTEGER {
                let (x, y) = (sqlite3_column_int64(a, column), sqlite3_column_int64(b, column))
                return x == y ? 0 : x < y ? -1 : 1
            }
            let (x, y) = (sqlite3_column_double(a, column), sqlite3_column_double(b, column))
            return x == y ? 0 : x < y ? -1 : 1
        default:
            let (x, y) = (bytes(a, column, text: rankA == 2), bytes(b, column, text: rankA == 2))
            let common = min(x.count, y.count)
            if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                let order = memcmp(p, q, common)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
        }
    }

    /// Whether a column holds the same value in both rows: the same type and the same bytes.
    static func same(_ a: OpaquePointer?, _ b: OpaquePointer?, _ column: Int32) -> Bool {
        let type = sqlite3_column_type(a, column)
        guard type == sqlite3_column_type(b, column) else { return false }
        switch type {
        case SQLITE_NULL: return true
        case SQLITE_INTEGER: return sqlite3_column_int64(a, column) == sqlite3_column_int64(b, column)
        case SQLITE_FLOAT: return sqlite3_column_double(a, column).bitPattern == sqlite3_column_double(b, column).bitPattern
        default:
            let (x, y) = (bytes(a, column, text: type == SQLITE_TEXT), bytes(b, column, text: type == SQLITE_TEXT))
            guard x.count == y.count else { return false }
            guard x.count > 0, let p = x.baseAddress, let q = y.baseAddress else { return true }
            return memcmp(p, q, x.count) == 0
        }
    }

    private static func bytes(_ statement: OpaquePointer?, _ column: Int32, text: Bool) -> UnsafeRawBufferPointer {
        let pointer = text ? UnsafeRawPointer(sqlite3_column_text(statement, column)) : sqlite3_column_blob(statement, column)
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// A column's value exactly as stored.
    static func value(_ handle: OpaquePointer?, _ column: Int32) -> DeltaValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(String(decoding: bytes(handle, column, text: true), as: UTF8.self))
        case SQLITE_BLOB: return .blob(Array(bytes(handle, column, text: false)))
        default: return .null
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
