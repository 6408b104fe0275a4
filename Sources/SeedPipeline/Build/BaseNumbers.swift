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
/// statements and a bit per base number (so a number is never given twice, whatever the input).
final class BaseNumbers {
    private var connection: OpaquePointer?
    private var scan: OpaquePointer?
    private var lookup: OpaquePointer?
    /// The base row the scan is on (its key is column 0, its number column 1); false past the end.
    private var scanHasRow = false
    private var used: [UInt64]
    private(set) var highWater: Int64
    /// The last number given to a new row.
    private var issued: Int64
    /// How many base rows the scan may skip to follow a row found by lookup (removed rows between).
    static let skipLimit = 64

    /// Opens `table` of the base store read-only.
    /// - Parameters:
    ///   - key: the key column (the entity's single-attribute uniqueness constraint).
    ///   - highWater: the highest number the channel issued for the entity.
    init(base path: String, table: String, keyColumn: String, primaryKey: String, highWater: Int64) throws {
        self.highWater = highWater
        issued = highWater
        used = [UInt64](repeating: 0, count: Int(max(highWater, 0) / 64) + 1)
        guard sqlite3_open_v2(StoreFile.immutableURI(path), &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK else {
            defer { close() }
            throw IngestError(.badData, file: path, "cannot open the base release to number \(table)'s rows: \(message); give another --base, or --no-base")
        }
        let (name, key, number) = (DeltaPlan.quote(table), DeltaPlan.quote(keyColumn), DeltaPlan.quote(primaryKey))
        scan = try prepare("SELECT \(key), \(number) FROM \(name) ORDER BY \(number)", path: path)
        lookup = try prepare("SELECT \(number) FROM \(name) WHERE \(key) = ?1", path: path)
        scanHasRow = sqlite3_step(scan) == SQLITE_ROW
    }

    deinit { close() }

    private func close() {
        sqlite3_finalize(scan)
        sqlite3_finalize(lookup)
        sqlite3_close_v2(connection)
        (scan, lookup, connection) = (nil, nil, nil)
    }

    private var message: String { connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory" }

    private func prepare(_ sql: String, path: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK else {
            close()
            throw IngestError(.badData, file: path, "cannot read the base release's keys (\(message)); give another --base, or --no-base")
        }
        return statement
    }

    /// The number of the row whose key is `slot`, and whether it came in the base's order (the
    /// scan's next row): rows that did not — new ones, and rows found through the index, such as
    /// those a night before added between others — would go in below numbers already there.
    func number(for slot: RowBatch.Slot, arena: UnsafeRawBufferPointer) -> (number: Int64, inOrder: Bool) {
        if case .null = slot { return (issueNew(), false) }
        if scanHasRow, Self.matches(slot, arena: arena, statement: scan) {
            let found = sqlite3_column_int64(scan, 1)
            if take(found) {
                scanHasRow = sqlite3_step(scan) == SQLITE_ROW
                return (found, true)
            }
        }
        sqlite3_reset(lookup)
        Self.bind(slot, arena: arena, to: lookup)
        guard sqlite3_step(lookup) == SQLITE_ROW else { return (issueNew(), false) }
        let found = sqlite3_column_int64(lookup, 0)
        guard take(found) else { return (issueNew(), false) }
        // Rows removed from the base lay between the scan and this one: the scan skips them.
        if scanHasRow, case let at = sqlite3_column_int64(scan, 1), at <= found, found - at <= Int64(Self.skipLimit) {
            while scanHasRow, sqlite3_column_int64(scan, 1) <= found { scanHasRow = sqlite3_step(scan) == SQLITE_ROW }
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
        guard number > 0, number <= highWater else { return false }
        let (word, bit) = (Int(number / 64), UInt64(1) << UInt64(number % 64))
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
