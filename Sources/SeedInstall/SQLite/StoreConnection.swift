import Foundation

#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

/// A connection to a store file through SQLite's C API: the one place SeedInstall calls `sqlite3_*`.
///
/// Every result code is checked where it is returned and becomes a ``StoreError`` of kind
/// `sqlite(code:)` (the extended result code) carrying SQLite's message and the SQL. Statements are
/// finalized and the connection closed when their objects go.
///
/// ```swift
/// let store = try StoreConnection(path: path, mode: .immutable)
/// let problems = try store.strings("PRAGMA quick_check")
/// ```
/// Not `Sendable`: one thread uses a connection at a time, as SQLite's
/// [threading modes](https://www.sqlite.org/threadsafe.html) ask of a connection opened per use.
package final class StoreConnection {
    /// How a store file is opened.
    package enum Mode: Sendable, Equatable {
        /// Read-only and immutable (`mode=ro&immutable=1`): no locks, no journal, nothing beside the file.
        case immutable
        /// Read-write on an existing file, waiting up to `busyTimeout` seconds for other connections'
        /// locks; a write-ahead log beside it is read (and folded in when this connection is the last).
        case shared(busyTimeout: TimeInterval)
        /// Read-write on an existing file this process owns (a temporary copy).
        case writable
    }

    /// SQLite's storage classes.
    package enum ColumnType: Sendable {
        case null, integer, real, text, blob
    }

    /// A value bound to, or read from, SQL: exactly as stored.
    package typealias Value = SQLiteValue

    /// The file, for error messages.
    package let path: String
    private let handle: OpaquePointer
    private let ownsHandle: Bool
    /// What ``stop(when:)`` set: held here while SQLite holds a pointer to it.
    private var stopCondition: StopCondition?

    /// Opens an existing store file.
    /// - Parameter shouldStop: when given, the connection stops once it says so (``stop(when:)``).
    /// - Throws: ``StoreError``: `notFound` when there is no file, `notASeedStore` when it is not
    ///   SQLite, `sqlite(code:)` for other failures.
    package init(path: String, mode: Mode, stopWhen shouldStop: (() -> Bool)? = nil) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.notFound, path: path, "no such file; check the path")
        }
        let location: String
        let flags: Int32
        switch mode {
        case .immutable:
            location = Self.immutableURI(path)
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        case .shared, .writable:
            location = path
            flags = SQLITE_OPEN_READWRITE
        }
        var opened: OpaquePointer?
        // One thread at a time (the type is not Sendable): no mutex around every call, which cost
        // 15% of a delta install's time reading a million rows back for their digest.
        let code = sqlite3_open_v2(location, &opened, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw StoreError(.sqlite(code: code), path: path, "cannot open the store: SQLite error \(code): \(message)")
        }
        self.path = path
        handle = opened
        ownsHandle = true
        if case .shared(let timeout) = mode {
            let code = sqlite3_busy_timeout(handle, Int32(min(timeout * 1000, Double(Int32.max))))
            guard code == SQLITE_OK else { throw error(code, sql: nil) }
        }
        // Opening is lazy about the header; read it now so a file that is not SQLite fails here.
        do throws(StoreError) {
            _ = try strings("PRAGMA schema_version")
        } catch {
            guard error.kind == .sqlite(code: SQLITE_NOTADB) else { throw error }
            throw StoreError(.notASeedStore, path: path, "not an SQLite database; give a seed store (.sqlite)")
        }
        if let shouldStop { stop(when: shouldStop) }
    }

    /// Runs SeedInstall's SQL on a connection opened elsewhere (the runtime's GRDB connection, by its
    /// `sqlite3` handle), on that connection's thread; the handle is never closed here.
    package init(borrowing handle: OpaquePointer, path: String) {
        self.path = path
        self.handle = handle
        ownsHandle = false
    }

    deinit {
        // A borrowed handle outlives this object: it must not call back into a condition freed here.
        if stopCondition != nil, !ownsHandle { sqlite3_progress_handler(handle, 0, nil, nil) }
        // sqlite3_close_v2 defers the close until the last statement is finalized; statements are
        // finalized by their own deinit, so nothing here can fail but a misuse, which it reports.
        if ownsHandle { sqlite3_close_v2(handle) }
    }

    /// Makes this connection's work stop once `shouldStop` returns true: a statement about to start
    /// fails, and one running fails with `SQLITE_INTERRUPT` (asked every 1,000 virtual-machine
    /// instructions, through [sqlite3_progress_handler](https://www.sqlite.org/c3ref/progress_handler.html)).
    /// Both throw ``StoreError`` of kind `sqlite(code:)` with SQLite's interrupt code; a transaction
    /// stopped so is rolled back by ``inTransaction(_:)``.
    /// - Parameter shouldStop: called on the thread using the connection; it must be quick (a flag,
    ///   a clock) and never use the connection.
    package func stop(when shouldStop: @escaping () -> Bool) {
        let condition = StopCondition(shouldStop)
        stopCondition = condition
        sqlite3_progress_handler(
            handle, 1000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<StopCondition>.fromOpaque(context).takeUnretainedValue().shouldStop() ? 1 : 0
            }, Unmanaged.passUnretained(condition).toOpaque())
    }

    /// Throws the interrupt error when ``stop(when:)``'s condition holds, before a statement starts
    /// (the progress handler is called only within a statement, and a short one may never reach it).
    private func checkStop(sql: String) throws(StoreError) {
        guard let stopCondition, stopCondition.shouldStop() else { return }
        throw StoreError(.sqlite(code: SQLITE_INTERRUPT), path: path, "SQLite error \(SQLITE_INTERRUPT): interrupted", sql: sql)
    }

    /// The URI filename opening `path` read-only and immutable, for opening or `ATTACH`.
    package static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
        return "file:\(encoded)?mode=ro&immutable=1"
    }

    /// Runs every statement of `sql` (separated by `;`), with `arguments` bound to each in order.
    package func execute(_ sql: String, _ arguments: [Value] = []) throws(StoreError) {
        try checkStop(sql: sql)
        try run(sql, arguments)
    }

    /// ``execute(_:_:)`` whether or not ``stop(when:)``'s condition holds (a rollback).
    private func run(_ sql: String, _ arguments: [Value]) throws(StoreError) {
        var remaining = Substring(sql)
        while let statement = try prepareNext(&remaining) {
            try statement.bind(arguments)
            while try statement.step() {}
        }
    }

    /// Calls `body` with each row `sql` gives; a row is valid only during its call.
    package func forEachRow(_ sql: String, _ arguments: [Value] = [], _ body: (Row) throws(StoreError) -> Void) throws(StoreError) {
        try checkStop(sql: sql)
        var remaining = Substring(sql)
        guard let statement = try prepareNext(&remaining) else { return }
        try statement.bind(arguments)
        while try statement.step() {
            try body(Row(statement: statement.handle))
        }
    }

    /// Prepares one statement (the first of `sql`) to bind, step and reset by hand: a scan read
    /// alongside other input, or a lookup run again and again.
    /// - Throws: ``StoreError`` of kind `sqlite(code:)` with SQLite's message and the SQL.
    package func prepare(_ sql: String) throws(StoreError) -> Statement {
        try checkStop(sql: sql)
        var remaining = Substring(sql)
        guard let statement = try prepareNext(&remaining) else {
            throw StoreError(.sqlite(code: SQLITE_MISUSE), path: path, "no statement to prepare", sql: sql)
        }
        return statement
    }

    /// Every row `sql` gives, as values.
    package func rows(_ sql: String, _ arguments: [Value] = []) throws(StoreError) -> [[Value]] {
        var rows: [[Value]] = []
        try forEachRow(sql, arguments) { row in rows.append((0..<row.count).map(row.value)) }
        return rows
    }

    /// The first column of every row, as text (`PRAGMA quick_check`'s findings).
    package func strings(_ sql: String, _ arguments: [Value] = []) throws(StoreError) -> [String] {
        try rows(sql, arguments).compactMap { row in
            switch row.first {
            case .text(let text): text
            case .integer(let number): String(number)
            default: nil
            }
        }
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws.
    package func inTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? run("ROLLBACK", [])
            throw error
        }
    }

    /// The next statement of `sql`, advancing past it; nil when only blanks or comments remain.
    private func prepareNext(_ sql: inout Substring) throws(StoreError) -> Statement? {
        while !sql.isEmpty {
            var prepared: OpaquePointer?
            var consumed = 0
            let text = String(sql)
            let code = text.withCString { start in
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, start, -1, &prepared, &tail)
                if let tail { consumed = start.distance(to: tail) }
                return code
            }
            guard code == SQLITE_OK else { throw error(code, sql: text) }
            let statementText = String(decoding: text.utf8.prefix(consumed), as: UTF8.self)
            sql = Substring(String(decoding: text.utf8.dropFirst(consumed), as: UTF8.self))
            if let prepared { return Statement(handle: prepared, connection: self, sql: statementText) }
            if consumed == 0 { break }
        }
        return nil
    }

    /// The error for a result code, with SQLite's message for this connection.
    fileprivate func error(_ code: Int32, sql: String?) -> StoreError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        return StoreError(.sqlite(code: extended == 0 ? code : extended), path: path, "SQLite error \(code): \(message)", sql: sql)
    }
}

extension StoreConnection {
    /// A row of a statement being stepped: its columns read in place, valid only until the next step.
    package struct Row {
        fileprivate let statement: OpaquePointer

        fileprivate init(statement: OpaquePointer) {
            self.statement = statement
        }

        /// The current row of a statement prepared and stepped elsewhere — GRDB's, by its
        /// `sqliteStatement`, where a build reads millions of rows without a value per column —
        /// read in place; the statement stays its owner's.
        package init(borrowing statement: OpaquePointer) {
            self.statement = statement
        }

        package var count: Int { Int(sqlite3_column_count(statement)) }

        package func value(_ column: Int) -> Value {
            switch type(column) {
            case .integer: .integer(integer(column))
            case .real: .real(real(column))
            case .text: .text(withBytes(column) { String(decoding: $0, as: UTF8.self) })
            case .blob: .blob(withBytes(column) { Array($0) })
            case .null: .null
            }
        }

        /// The column's storage class, without converting it.
        package func type(_ column: Int) -> ColumnType {
            switch sqlite3_column_type(statement, Int32(column)) {
            case SQLITE_INTEGER: .integer
            case SQLITE_FLOAT: .real
            case SQLITE_TEXT: .text
            case SQLITE_BLOB: .blob
            default: .null
            }
        }

        package func integer(_ column: Int) -> Int64 { sqlite3_column_int64(statement, Int32(column)) }
        package func real(_ column: Int) -> Double { sqlite3_column_double(statement, Int32(column)) }

        /// A text or blob column's bytes where SQLite holds them (no copy).
        package func withBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
            withBytes(column, isText: sqlite3_column_type(statement, Int32(column)) == SQLITE_TEXT, body)
        }

        /// ``withBytes(_:_:)`` for a column whose type the caller read already (a diff reads a
        /// million rows' types once each).
        package func withBytes<T>(_ column: Int, isText: Bool, _ body: (UnsafeRawBufferPointer) -> T) -> T {
            let index = Int32(column)
            // Text first when it is text: sqlite3_column_bytes after sqlite3_column_text counts its UTF-8.
            let start: UnsafeRawPointer? =
                isText ? UnsafeRawPointer(sqlite3_column_text(statement, index)) : sqlite3_column_blob(statement, index)
            let count = Int(sqlite3_column_bytes(statement, index))
            return body(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
        }
    }

    /// A prepared statement, finalized when it goes; it keeps its connection open.
    /// Not `Sendable`, as its connection.
    package final class Statement {
        fileprivate let handle: OpaquePointer
        private let connection: StoreConnection
        /// The statement's text, for error messages.
        package let sql: String

        fileprivate init(handle: OpaquePointer, connection: StoreConnection, sql: String) {
            self.handle = handle
            self.connection = connection
            self.sql = sql
        }

        deinit { sqlite3_finalize(handle) }

        /// Binds `values` to the parameters in order (see ``bind(_:at:)``).
        package func bind(_ values: [Value]) throws(StoreError) {
            for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
        }

        /// Binds `value` to parameter `parameter` (from 1). Text and blobs are bound by their byte count
        /// (`sqlite3_bind_text64`, `sqlite3_bind_blob64`): text holding U+0000 is bound whole, and a
        /// value too long for SQLite fails with `SQLITE_TOOBIG` instead of a conversion trap.
        package func bind(_ value: Value, at parameter: Int) throws(StoreError) {
            // More parameters than SQLite allows fail as SQLITE_RANGE.
            let index = Int32(clamping: parameter)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(var text): code = text.withUTF8 { bindBytes(UnsafeRawBufferPointer($0), isText: true, at: index) }
            case .blob(let bytes): code = bytes.withUnsafeBytes { bindBytes($0, isText: false, at: index) }
            }
            guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
        }

        /// Binds bytes where the caller holds them (no copy into a ``Value`` first), as text (UTF-8,
        /// bound as they are) or as a blob, to parameter `parameter` (from 1).
        package func bind(_ bytes: UnsafeRawBufferPointer, as type: ColumnType, at parameter: Int) throws(StoreError) {
            precondition(type == .text || type == .blob, "bytes bind as text or a blob")
            let code = bindBytes(bytes, isText: type == .text, at: Int32(clamping: parameter))
            guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
        }

        /// Binds text or a blob by its byte count, and returns SQLite's result code.
        private func bindBytes(_ bytes: UnsafeRawBufferPointer, isText: Bool, at index: Int32) -> Int32 {
            // A null pointer would bind NULL, not empty text or an empty blob.
            let start = bytes.isEmpty ? UnsafeRawPointer(("" as StaticString).utf8Start) : bytes.baseAddress!
            return isText
                ? sqlite3_bind_text64(
                    handle, index, start.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
                : sqlite3_bind_blob64(handle, index, start, UInt64(bytes.count), transient)
        }

        /// Steps once: true with a row to read (``row``), false when done.
        package func step() throws(StoreError) -> Bool {
            let code = sqlite3_step(handle)
            guard code == SQLITE_ROW || code == SQLITE_DONE else { throw connection.error(code, sql: sql) }
            return code == SQLITE_ROW
        }

        /// The row ``step()`` stopped on, valid until the next step or reset.
        package var row: Row { Row(statement: handle) }

        /// Makes the statement ready to run again from its first row, keeping its bindings.
        /// - Throws: the error of the last step, when it failed (and was thrown there already).
        package func reset() throws(StoreError) {
            let code = sqlite3_reset(handle)
            guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
        }
    }
}

/// `SQLITE_TRANSIENT`, a macro Swift cannot import: SQLite copies the bound bytes at once.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The condition ``StoreConnection/stop(when:)`` set, at a fixed address SQLite's progress handler
/// is given.
private final class StopCondition {
    let shouldStop: () -> Bool

    init(_ shouldStop: @escaping () -> Bool) {
        self.shouldStop = shouldStop
    }
}
