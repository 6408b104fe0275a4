package import GRDB

#if canImport(SQLite3)
    package import SQLite3
#elseif canImport(GRDBSQLite)
    internal import GRDBSQLite
#endif

/// A prepared `INSERT` for loading many rows fast, binding values with the SQLite C functions (or a
/// `SELECT` probing the table between inserts: ``returnsRow()``).
///
/// Binding through GRDB's argument API measured at half the speed of `sqlite3_bind_*` on the
/// statement handle, so the load loop uses this. Text and blobs bound from a buffer are bound
/// without copying: the caller keeps the bytes alive until ``step()`` returns.
///
/// ```swift
/// let insert = try BulkInsert(db, sql: "INSERT INTO t (a, b) VALUES (?, ?)")
/// insert.bind(1, 42); insert.bindNull(2)
/// try insert.step()
/// ```
package final class BulkInsert {
    /// What one `step()` did.
    package enum Outcome: Equatable {
        case inserted
        /// A constraint failed (UNIQUE, NOT NULL, CHECK); the message is SQLite's.
        case constraintViolation(String)
    }

    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private let sql: String

    package init(_ db: Database, sql: String) throws {
        statement = try db.makeStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        self.sql = sql
    }

    /// Parameter indexes start at 1, as in SQLite.
    package func bindNull(_ index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    package func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    package func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds UTF-8 text that stays valid until ``step()`` returns (no copy).
    package func bindText(_ index: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            // An empty field may have no address; a copied empty string is still TEXT, not NULL.
            sqlite3_bind_text(handle, index, "", 0, Self.transient)
            return
        }
        sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
    }

    /// Binds text, copied by SQLite.
    package func bindText(_ index: Int32, _ text: String) {
        sqlite3_bind_text(handle, index, text, -1, Self.transient)
    }

    /// Binds a blob, copied by SQLite.
    package func bindBlob(_ index: Int32, _ bytes: [UInt8]) {
        if bytes.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        _ = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
        }
    }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertedRowID: Int64 {
        sqlite3_last_insert_rowid(connection)
    }

    /// Runs the insert and resets the statement; bindings stay for the next row.
    @discardableResult
    package func step() throws -> Outcome {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        switch code {
        case SQLITE_DONE:
            return .inserted
        // GRDB turns SQLite's extended result codes on: SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY, _NOTNULL…
        // carry SQLITE_CONSTRAINT in their low byte.
        case let code where code & 0xFF == SQLITE_CONSTRAINT:
            return .constraintViolation(String(cString: sqlite3_errmsg(connection)))
        default:
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }

    /// For a `SELECT` prepared here: whether it returns a row. Resets the statement; bindings stay.
    package func returnsRow() throws -> Bool {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }

    /// `SQLITE_TRANSIENT` is a C macro Swift cannot import: the destructor value -1 tells SQLite to copy.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
