import Foundation
import SeedStore
#if canImport(SQLite3)
import SQLite3
#elseif canImport(GRDBSQLite)
import GRDBSQLite
#endif

/// Numbers rows as they are read, on the producer thread: a row whose key the base release holds
/// takes that object's `Z_PK`, any other the next number above the channel's high-water mark, in
/// file order. The table is then written once, with its final numbers, and hashed as it goes in —
/// no rewrite after the load (``StableKeys`` does that for the tables this cannot number).
///
/// Nightly exports keep their order, so the base's rows are read alongside the file in `Z_PK` order
/// (one sequential scan): a row's key is nearly always the next base row's. A key that is not — a
/// new row, or one after removed or moved rows — is looked up through the base's unique index on
/// the key, and the scan skips ahead over a few removed rows. Memory stays constant: two prepared
/// statements and a bit per number between the base's lowest and highest `Z_PK` (so a number is
/// never given twice, whatever the input) — not per number up to the high-water mark, which
/// ``BaseRelease`` bounds by the base's row count.
final class BaseNumbers {
    private var connection: OpaquePointer?
    private var scan: OpaquePointer?
    private var lookup: OpaquePointer?
    /// The base row the scan is on (its key is column 0, its number column 1); false past the end.
    private var scanHasRow = false
    /// A bit per number from `lowest` to the base's highest `Z_PK`.
    private var used: [UInt64]
    private let lowest: Int64
    private let highestInBase: Int64
    private(set) var highWater: Int64
    /// The last number given to a new row.
    private var issued: Int64
    private let path: String
    private let table: String
    /// How many base rows the scan may skip to follow a row found by lookup (removed rows between).
    static let skipLimit = 64

    /// Opens `table` of the base store read-only.
    /// - Parameters:
    ///   - key: the key column (the entity's single-attribute uniqueness constraint).
    ///   - highWater: the highest number the channel issued for the entity.
    /// - Throws: ``IngestError`` with SQLite's own message when the base cannot be read.
    init(base path: String, table: String, keyColumn: String, primaryKey: String, highWater: Int64) throws {
        self.path = path
        self.table = table
        guard sqlite3_open_v2(StoreDatabase.immutableURI(path), &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw IngestError(.badData, file: path, "cannot open the base release to number \(table)'s rows: \(message); give another --base, or --no-base")
        }
        let (name, key, number) = (DeltaPlan.quote(table), DeltaPlan.quote(keyColumn), DeltaPlan.quote(primaryKey))
        let range = try Self.prepare("SELECT coalesce(min(\(number)), 1), coalesce(max(\(number)), 0) FROM \(name)", connection, path: path)
        defer { sqlite3_finalize(range) }
        try Self.step(range, connection, path: path, table: table, expectingRow: true)
        (lowest, highestInBase) = (max(sqlite3_column_int64(range, 0), 1), sqlite3_column_int64(range, 1))
        guard highestInBase <= highWater else {
            throw IngestError(.badData, file: path, "the base release's \(table) holds Z_PK \(highestInBase), above the \(highWater) its channel says it issued; give another --base, or --no-base")
        }
        self.highWater = highWater
        issued = highWater
        used = [UInt64](repeating: 0, count: Int(max(highestInBase - lowest + 1, 0) / 64) + 1)
        scan = try Self.prepare("SELECT \(key), \(number) FROM \(name) ORDER BY \(number)", connection, path: path)
        lookup = try Self.prepare("SELECT \(number) FROM \(name) WHERE \(key) = ?1", connection, path: path)
        scanHasRow = try Self.step(scan, connection, path: path, table: table)
    }

    deinit {
        sqlite3_finalize(scan)
        sqlite3_finalize(lookup)
        sqlite3_close_v2(connection)
    }

    private static func prepare(_ sql: String, _ connection: OpaquePointer?, path: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK else {
            // The message is the connection's until the next call: read before the statement goes.
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_finalize(statement)
            throw IngestError(.badData, file: path, "cannot read the base release's keys (\(message)); give another --base, or --no-base")
        }
        return statement
    }

    /// One step: true for a row, false at the end; SQLite's error otherwise (a damaged page, an I/O error).
    @discardableResult
    private static func step(_ statement: OpaquePointer?, _ connection: OpaquePointer?, path: String, table: String, expectingRow: Bool = false) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE where !expectingRow: return false
        case let code:
            let message = code == SQLITE_DONE ? "no row" : String(cString: sqlite3_errmsg(connection))
            throw IngestError(.badData, file: path, "cannot read the base release's \(table) (\(message), SQLite code \(code)); give another --base, or --no-base")
        }
    }

    private func step(_ statement: OpaquePointer?) throws -> Bool {
        try Self.step(statement, connection, path: path, table: table)
    }

    /// The number of the row whose key is `slot`, and whether it came in the base's order (the
    /// scan's next row): rows that did not — new ones, and rows found through the index, such as
    /// those a night before added between others — would go in below numbers already there.
    /// - Throws: ``IngestError`` with SQLite's message when the base cannot be read.
    func number(for slot: RowBatch.Slot, arena: UnsafeRawBufferPointer) throws -> (number: Int64, inOrder: Bool) {
        if case .null = slot { return (issueNew(), false) }
        if scanHasRow, Self.matches(slot, arena: arena, statement: scan) {
            let found = sqlite3_column_int64(scan, 1)
            if take(found) {
                scanHasRow = try step(scan)
                return (found, true)
            }
        }
        sqlite3_reset(lookup)
        Self.bind(slot, arena: arena, to: lookup)
        guard try step(lookup) else { return (issueNew(), false) }
        let found = sqlite3_column_int64(lookup, 0)
        guard take(found) else { return (issueNew(), false) }
        // Rows removed from the base lay between the scan and this one: the scan skips them.
        if scanHasRow, case let at = sqlite3_column_int64(scan, 1), at <= found, found - at <= Int64(Self.skipLimit) {
            while scanHasRow, sqlite3_column_int64(scan, 1) <= found { scanHasRow = try step(scan) }
            return (found, true)
        }
        return (found, false)
    }

    private func issueNew() -> Int64 {
        issued += 1
        return issued
    }

    /// Marks a base number given; false when it was given already (a key twice in the input, which
    /// the uniqueness check then reports: the second row is numbered as new).
    private func take(_ number: Int64) -> Bool {
        guard number >= lowest, number <= highestInBase else { return false }
        let offset = number - lowest
        let (word, bit) = (Int(offset / 64), UInt64(1) << UInt64(offset % 64))
        guard used[word] & bit == 0 else { return false }
        used[word] |= bit
        return true
    }

    /// Whether column 0 of `statement`'s row holds the value `slot` would bind, type and bytes.
    private static func matches(_ slot: RowBatch.Slot, arena: UnsafeRawBufferPointer, statement: OpaquePointer?) -> Bool {
        let type = sqlite3_column_type(statement, 0)
        switch slot {
        case .null:
            return false
        case .integer(let number):
            return type == SQLITE_INTEGER && sqlite3_column_int64(statement, 0) == number
        case .real(let number):
            return type == SQLITE_FLOAT && sqlite3_column_double(statement, 0) == number
        case .text(let start, let count), .blob(let start, let count):
            let isText = if case .text = slot { true } else { false }
            guard type == (isText ? SQLITE_TEXT : SQLITE_BLOB) else { return false }
            let pointer = isText ? UnsafeRawPointer(sqlite3_column_text(statement, 0)) : sqlite3_column_blob(statement, 0)
            let length = Int(sqlite3_column_bytes(statement, 0))
            guard length == count else { return false }
            guard count > 0, let pointer, let mine = arena.baseAddress else { return true }
            return memcmp(pointer, mine + start, count) == 0
        }
    }

    private static func bind(_ slot: RowBatch.Slot, arena: UnsafeRawBufferPointer, to statement: OpaquePointer?) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        switch slot {
        case .null: sqlite3_bind_null(statement, 1)
        case .integer(let number): sqlite3_bind_int64(statement, 1, number)
        case .real(let number): sqlite3_bind_double(statement, 1, number)
        case .text(let start, let count):
            // An empty field may have no address: an empty text is still TEXT, not NULL.
            let bytes = arena.baseAddress.map { UnsafeRawPointer($0 + start) } ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            sqlite3_bind_text(statement, 1, bytes.assumingMemoryBound(to: CChar.self), Int32(count), transient)
        case .blob(let start, let count):
            let bytes = arena.baseAddress.map { UnsafeRawPointer($0 + start) } ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            sqlite3_bind_blob(statement, 1, bytes, Int32(count), transient)
        }
    }
}
