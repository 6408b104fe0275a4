import Foundation
import SeedStore

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
    private let connection: StoreConnection
    /// The base's rows by number (key, then number); ``scanHasRow`` says whether it is on one.
    private let scan: StoreConnection.Statement
    private let lookup: StoreConnection.Statement
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
        do throws(StoreError) {
            connection = try StoreConnection(path: path, mode: .immutable)
        } catch {
            throw IngestError(
                .badData, file: path,
                "cannot open the base release to number \(table)'s rows: \(error.message); give another --base, or --no-base")
        }
        let (name, key, number) = (quoteIdentifier(table), quoteIdentifier(keyColumn), quoteIdentifier(primaryKey))
        let range = try Self.prepare("SELECT coalesce(min(\(number)), 1), coalesce(max(\(number)), 0) FROM \(name)", connection, path: path)
        try Self.step(range, path: path, table: table, expectingRow: true)
        (lowest, highestInBase) = (max(range.row.integer(0), 1), range.row.integer(1))
        guard highestInBase <= highWater else {
            throw IngestError(
                .badData, file: path,
                "the base release's \(table) holds Z_PK \(highestInBase), above the \(highWater) its channel says it issued; give another --base, or --no-base"
            )
        }
        self.highWater = highWater
        issued = highWater
        used = [UInt64](repeating: 0, count: Int(max(highestInBase - lowest + 1, 0) / 64) + 1)
        scan = try Self.prepare("SELECT \(key), \(number) FROM \(name) ORDER BY \(number)", connection, path: path)
        lookup = try Self.prepare("SELECT \(number) FROM \(name) WHERE \(key) = ?1", connection, path: path)
        scanHasRow = try Self.step(scan, path: path, table: table)
    }

    private static func prepare(_ sql: String, _ connection: StoreConnection, path: String) throws -> StoreConnection.Statement {
        do throws(StoreError) {
            return try connection.prepare(sql)
        } catch {
            throw IngestError(
                .badData, file: path, "cannot read the base release's keys (\(error.message)); give another --base, or --no-base")
        }
    }

    /// One step: true for a row, false at the end; SQLite's error otherwise (a damaged page, an I/O error).
    @discardableResult
    private static func step(_ statement: StoreConnection.Statement, path: String, table: String, expectingRow: Bool = false) throws -> Bool
    {
        let hasRow: Bool
        do throws(StoreError) {
            hasRow = try statement.step()
        } catch {
            throw IngestError(
                .badData, file: path, "cannot read the base release's \(table) (\(error.message)); give another --base, or --no-base")
        }
        guard hasRow || !expectingRow else {
            throw IngestError(.badData, file: path, "cannot read the base release's \(table) (no row); give another --base, or --no-base")
        }
        return hasRow
    }

    private func step(_ statement: StoreConnection.Statement) throws -> Bool {
        try Self.step(statement, path: path, table: table)
    }

    /// The number of the row whose key is `slot`, and whether it came in the base's order (the
    /// scan's next row): rows that did not — new ones, and rows found through the index, such as
    /// those a night before added between others — would go in below numbers already there.
    /// - Throws: ``IngestError`` with SQLite's message when the base cannot be read.
    func number(for slot: RowBatch.Slot, arena: UnsafeRawBufferPointer) throws -> (number: Int64, inOrder: Bool) {
        if case .null = slot { return (issueNew(), false) }
        if scanHasRow, Self.matches(slot, arena: arena, row: scan.row) {
            let found = scan.row.integer(1)
            if take(found) {
                scanHasRow = try step(scan)
                return (found, true)
            }
        }
        do throws(StoreError) {
            try lookup.reset()
            try Self.bind(slot, arena: arena, to: lookup)
        } catch {
            throw IngestError(
                .badData, file: path, "cannot read the base release's \(table) (\(error.message)); give another --base, or --no-base")
        }
        guard try step(lookup) else { return (issueNew(), false) }
        let found = lookup.row.integer(0)
        guard take(found) else { return (issueNew(), false) }
        // Rows removed from the base lay between the scan and this one: the scan skips them.
        if scanHasRow, case let at = scan.row.integer(1), at <= found, found - at <= Int64(Self.skipLimit) {
            while scanHasRow, scan.row.integer(1) <= found { scanHasRow = try step(scan) }
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

    /// Whether column 0 of `row` holds the value `slot` would bind, type and bytes.
    private static func matches(_ slot: RowBatch.Slot, arena: UnsafeRawBufferPointer, row: StoreConnection.Row) -> Bool {
        let type = row.type(0)
        switch slot {
        case .null:
            return false
        case .integer(let number):
            return type == .integer && row.integer(0) == number
        case .real(let number):
            return type == .real && row.real(0) == number
        case .text(let start, let count), .blob(let start, let count):
            let isText = if case .text = slot { true } else { false }
            guard type == (isText ? .text : .blob) else { return false }
            return row.withBytes(0) { stored in
                guard stored.count == count else { return false }
                guard count > 0, let pointer = stored.baseAddress, let mine = arena.baseAddress else { return true }
                return memcmp(pointer, mine + start, count) == 0
            }
        }
    }

    private static func bind(_ slot: RowBatch.Slot, arena: UnsafeRawBufferPointer, to statement: StoreConnection.Statement)
        throws(StoreError)
    {
        switch slot {
        case .null: try statement.bind(.null, at: 1)
        case .integer(let number): try statement.bind(.integer(number), at: 1)
        case .real(let number): try statement.bind(.real(number), at: 1)
        case .text(let start, let count), .blob(let start, let count):
            // An empty field may have no address; the statement binds it as empty text or an empty blob, not NULL.
            let bytes = UnsafeRawBufferPointer(start: arena.baseAddress.map { $0 + start }, count: count)
            let isText = if case .text = slot { true } else { false }
            try statement.bind(bytes, as: isText ? .text : .blob, at: 1)
        }
    }
}
