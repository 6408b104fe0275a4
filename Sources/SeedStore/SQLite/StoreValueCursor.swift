import Foundation
internal import GRDB

#if canImport(SQLite3)
    internal import SQLite3
#elseif canImport(GRDBSQLite)
    internal import GRDBSQLite
#endif

/// Steps a `SELECT`, reading each column straight from SQLite into a ``StoreValue``.
///
/// Reading a fetch's columns through GRDB's `Row` (a generic `DatabaseValue` decode per column,
/// whose metadata is looked up at run time outside GRDB's module) took a third of a store fetch in
/// the profile; these are the same `sqlite3_column_*` calls without that.
///
/// ```swift
/// let cursor = try StoreValueCursor(db, sql: "SELECT name, latitude FROM Place WHERE county = ?", arguments: [.text("Kent")])
/// while try cursor.next() { print(cursor.value(at: 0), cursor.value(at: 1)) }
/// ```
final class StoreValueCursor {
    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private let sql: String
    let columnCount: Int

    init(_ db: Database, sql: String, arguments: [StoreValue]) throws {
        statement = try db.makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        columnCount = Int(sqlite3_column_count(handle))
        self.sql = sql
    }

    deinit {
        // Ends the statement's read at once, rather than when GRDB finalizes it.
        sqlite3_reset(handle)
    }

    /// Moves to the next row; false after the last.
    /// - Throws: `DatabaseError` with SQLite's code and message and the SQL.
    func next() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }

    /// The current row's value in a column (from 0).
    func value(at index: Int) -> StoreValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            // Text first, then its length, in that order as SQLite asks (the length is of the UTF-8 form).
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(
                String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column))))
        default:
            return .null
        }
    }
}
