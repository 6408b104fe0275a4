import GRDB
import SeedInstall
#if canImport(SQLite3)
import SQLite3
#elseif canImport(GRDBSQLite)
import GRDBSQLite
#endif

/// The changes of one table between the base (schema `base`) and the new store (`main`).
///
/// Rows are matched on the primary key; a matched row changed when a column `IS NOT` its old
/// value or its `typeof()` differs (SQLite's `1 = 1.0` is true; a delta must carry the type
/// change). SQL's comparison cannot see the sign of a zero real: a change from `0.0` to `-0.0`
/// alone is not found (a REAL column stores `-0.0` as `0` anyway).
struct TableDiff {
    let table: DeltaTable
    let index: Int
    let db: Database
    let writer: DeltaWriter

    /// Writes the table's operations in apply order; returns how many.
    func run() throws -> Int {
        table.isKeyed ? try keyed() : try whole()
    }

    private var name: String { DeltaPlan.quote(table.name) }

    private func columns(_ alias: String, _ indexes: [Int]) -> String {
        indexes.map { "\(alias).\(DeltaPlan.quote(table.columns[$0]))" }.joined(separator: ", ")
    }

    private func keyed() throws -> Int {
        let all = Array(table.columns.indices)
        let match = table.keyColumns.map { "b.\(DeltaPlan.quote(table.columns[$0])) = n.\(DeltaPlan.quote(table.columns[$0]))" }.joined(separator: " AND ")
        var count = 0
        try each("SELECT \(columns("b", table.keyColumns)) FROM base.\(name) AS b WHERE NOT EXISTS (SELECT 1 FROM main.\(name) AS n WHERE \(match)) ORDER BY \(columns("b", table.keyColumns))") { values in
            try writer.write(.delete(table: index, key: values))
            count += 1
        }
        try each("SELECT \(columns("n", all)) FROM main.\(name) AS n WHERE NOT EXISTS (SELECT 1 FROM base.\(name) AS b WHERE \(match)) ORDER BY \(columns("n", table.keyColumns))") { values in
            try writer.write(.insert(table: index, row: values))
            count += 1
        }
        let others = all.filter { !table.keyColumns.contains($0) }
        guard !others.isEmpty else { return count }
        let changed = others.map { column in
            let quoted = DeltaPlan.quote(table.columns[column])
            return "(n.\(quoted) IS NOT b.\(quoted) OR typeof(n.\(quoted)) <> typeof(b.\(quoted)))"
        }
        let sql = """
            SELECT \(columns("n", table.keyColumns)), \(columns("n", others)), \(changed.joined(separator: ", "))
            FROM main.\(name) AS n JOIN base.\(name) AS b ON \(match)
            WHERE \(changed.joined(separator: " OR ")) ORDER BY \(columns("n", table.keyColumns))
            """
        let keys = table.keyColumns.count
        try each(sql) { values in
            let changes = others.indices.compactMap { position -> DeltaChange? in
                values[keys + others.count + position] == .integer(0) ? nil : DeltaChange(column: others[position], value: values[keys + position])
            }
            try writer.write(.update(table: index, key: Array(values[0..<keys]), changes: changes))
            count += 1
        }
        return count
    }

    /// A table without a primary key: when its rows differ at all, cleared and written whole.
    private func whole() throws -> Int {
        let list = columns("t", Array(table.columns.indices))
        let differs = try Bool.fetchOne(db, sql: """
            SELECT (SELECT count(*) FROM main.\(name)) <> (SELECT count(*) FROM base.\(name))
                OR EXISTS (SELECT \(list) FROM main.\(name) AS t EXCEPT SELECT \(list) FROM base.\(name) AS t)
                OR EXISTS (SELECT \(list) FROM base.\(name) AS t EXCEPT SELECT \(list) FROM main.\(name) AS t)
            """) ?? false
        guard differs else { return 0 }
        try writer.write(.clear(table: index))
        var count = 1
        try each("SELECT \(list) FROM main.\(name) AS t") { values in
            try writer.write(.insert(table: index, row: values))
            count += 1
        }
        return count
    }

    /// Steps through a query's rows, handing each row's values exactly as stored.
    private func each(_ sql: String, _ body: ([DeltaValue]) throws -> Void) throws {
        let statement = try db.makeStatement(sql: sql)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        let columns = sqlite3_column_count(handle)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            try body((0..<columns).map { Self.value(handle, $0) })
        }
    }

    private static func value(_ handle: OpaquePointer?, _ column: Int32) -> DeltaValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeRawBufferPointer(start: sqlite3_column_text(handle, column), count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, column), count: count)
            return .blob(Array(bytes))
        default: return .null
        }
    }
}
