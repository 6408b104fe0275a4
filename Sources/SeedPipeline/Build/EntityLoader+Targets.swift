import GRDB
import SeedStore

extension EntityLoader {
    /// The prepared statements one load inserts through, and where each row or run of rows goes.
    ///
    /// Rows go several to a statement only when none can hit a key already there, so no statement
    /// stops halfway (under journal_mode=OFF SQLite keeps the rows before the failure): appended
    /// above every key, or an ascending run with no key of the table between its first and last.
    /// In Core Data's layout (rows keyed by `Z_PK`) a regular file's rows all go in as they come and
    /// the tracked key's unique index is built after the load (``EntityLoader/indexesKeyAfterLoad``).
    /// A pipe's, or a file read again because that index found a duplicate: the index is built at the
    /// first row below the highest key — the rows before ascend, so it cannot fail — and keeps
    /// out-of-order keys unique as they go in; it is dropped if the input turns out shuffled, and
    /// the constraint is then checked after the load.
    final class Targets {
        let direct: BulkInsert
        let directChunk: BulkInsert
        private let loader: EntityLoader
        private let db: Database
        private let columns: String
        private let placeholders: String
        private var staging: BulkInsert?
        private var stagingChunk: BulkInsert?
        private var probe: BulkInsert?
        /// The `CREATE UNIQUE INDEX` of Core Data's tracked key, once it exists (nil again once dropped).
        private(set) var keyIndex: String?
        private var keyIndexDropped = false

        init(loader: EntityLoader, db: Database) throws {
            self.loader = loader
            self.db = db
            columns = loader.insertColumns.map(quoteIdentifier).joined(separator: ", ")
            placeholders = loader.placeholders
            direct = try BulkInsert(db, sql: "INSERT INTO \(quoteIdentifier(loader.table.name)) (\(columns)) VALUES (\(placeholders))")
            // \(rowsPerStatement) rows to a statement: fewer steps through the VDBE per row.
            directChunk = try BulkInsert(
                db,
                sql: Self.insert(
                    into: quoteIdentifier(loader.table.name), columns: columns, placeholders: placeholders,
                    rows: EntityLoader.rowsPerStatement))
        }

        private static func insert(into table: String, columns: String, placeholders: String, rows: Int) -> String {
            "INSERT INTO \(table) (\(columns)) VALUES " + Array(repeating: "(\(placeholders))", count: rows).joined(separator: ", ")
        }

        /// The statement inserting all of `rows` at once, or nil when they must go one by one.
        func chunk(_ batch: RowBatch, rows: Range<Int>, arena: UnsafeRawBufferPointer) throws -> BulkInsert? {
            switch batch.order(of: rows) {
            case nil:
                return nil
            case .appending:
                return directChunk
            case .ascending:
                try prepareForRun()
                return try keyRangeIsFree(batch, from: rows.lowerBound, to: rows.upperBound - 1, arena: arena) ? directChunk : nil
            case .staged:
                if loader.isRowidTable {
                    try dropKeyIndex()
                    return directChunk
                }
                if stagingChunk == nil {
                    try createStaging()
                    stagingChunk = try BulkInsert(
                        db,
                        sql: Self.insert(
                            into: "temp.\(quoteIdentifier(loader.stagingTable))", columns: columns, placeholders: placeholders,
                            rows: EntityLoader.rowsPerStatement))
                }
                return stagingChunk
            }
        }

        /// The statement inserting row `row` on its own.
        func single(_ batch: RowBatch, row: Int) throws -> BulkInsert {
            switch batch.placements[row] {
            case .direct:
                return direct
            case .run, .descent:
                try prepareForRun()
                return direct
            case .staged:
                if loader.isRowidTable {
                    try dropKeyIndex()
                    return direct
                }
                try createStaging()
                return staging!
            }
        }

        /// Whether rows placed `.staged` went to the staging table (a keyed table's).
        var usesStagingTable: Bool { staging != nil }

        private func createStaging() throws {
            guard staging == nil else { return }
            let table = quoteIdentifier(loader.stagingTable)
            try db.execute(sql: "CREATE TEMP TABLE \(table) AS SELECT \(columns) FROM \(quoteIdentifier(loader.table.name)) WHERE 0")
            staging = try BulkInsert(db, sql: "INSERT INTO temp.\(table) (\(columns)) VALUES (\(placeholders))")
        }

        /// Before the first row below the highest key of a rowid table: builds the key's unique index.
        private func prepareForRun() throws {
            guard loader.isRowidTable, keyIndex == nil, !keyIndexDropped, let statement = loader.keyIndex?.statement else { return }
            try db.execute(sql: statement)
            keyIndex = statement
        }

        private func dropKeyIndex() throws {
            guard !keyIndexDropped else { return }
            keyIndexDropped = true
            guard keyIndex != nil, let name = loader.keyIndex?.name else { return }
            try db.execute(sql: "DROP INDEX \(quoteIdentifier(name))")
            keyIndex = nil
        }

        /// Whether the table holds no key between the keys of rows `first` and `last` of `batch`
        /// (ascending), so the rows between can go in with one statement.
        private func keyRangeIsFree(_ batch: RowBatch, from first: Int, to last: Int, arena: UnsafeRawBufferPointer) throws -> Bool {
            guard let feed = loader.keyFeed?.feed, let column = loader.trackedKeyColumn else { return false }
            if loader.isRowidTable && keyIndex == nil { return false }
            if probe == nil {
                let key = quoteIdentifier(column)
                probe = try BulkInsert(
                    db, sql: "SELECT 1 FROM \(quoteIdentifier(loader.table.name)) WHERE \(key) >= ?1 AND \(key) <= ?2 LIMIT 1")
            }
            batch.bind(row: first, column: feed, to: probe!, parameter: 1, arena: arena)
            batch.bind(row: last, column: feed, to: probe!, parameter: 2, arena: arena)
            return try !probe!.returnsRow()
        }
    }
}
