import GRDB
import SeedInstall
import SeedStore

/// The changes of one table between the base (schema `base`) and the new store (`main`).
///
/// Rows are matched on the primary key; a matched row changed when a column's type or bytes differ
/// (an integer 1 and a real 1.0 differ, as do a real's `0.0` and `-0.0`: exactly what the content
/// digest sees).
struct TableDiff {
    let table: DeltaTable
    let index: Int
    let db: Database
    let writer: DeltaWriter
    /// The two stores' files, so a large table can be read on a second connection (``splitKeyed()``).
    var newStorePath: String? = nil
    var basePath: String? = nil
    /// Rows from which a table is read in two halves at once.
    var splitRows = 200_000
    /// Changed rows held by ``keyed()`` before it reads a table again instead.
    var maxHeldBytes = 64 << 20
    /// An empty tally for an entity's table, counted as the table is read (``ChangeReport``).
    var tally: ChangeTally? = nil

    /// Writes the table's operations in apply order; returns how many, and the tally counted.
    func run() throws -> (operations: Int, tally: ChangeTally?) {
        table.isKeyed ? try keyed() : (try whole(), nil)
    }

    private var name: String { quoteIdentifier(table.name) }

    private func columns(_ alias: String, _ indexes: [Int]) -> String {
        indexes.map { "\(alias).\(quoteIdentifier(table.columns[$0]))" }.joined(separator: ", ")
    }

    /// A keyed table: both tables read once, side by side in key order (a sequential scan of each,
    /// where joins on the key measured 2.2 s for 1M rows against 0.6 s), matching rows by key. Only
    /// changed rows are held; past ``maxHeldBytes`` of them (a store mostly replaced), the table is
    /// read again for each kind of operation, each written as it is found.
    private func keyed() throws -> (operations: Int, tally: ChangeTally?) {
        if let split = try splitKeyed() { return split }
        var counted = tally
        if let held = try Self.held(MergedTables(table: table, index: index, db: db), limit: maxHeldBytes, tally: &counted) {
            try write(held)
            return (held.count, counted)
        }
        // The reading that held too much counted the whole table already.
        var count = 0
        for kind in 0...2 {
            try MergedTables(table: table, index: index, db: db).run { operation in
                guard operation.kind == kind else { return }
                try writer.write(operation)
                count += 1
            }
        }
        return (count, counted)
    }

    /// Writes held operations in apply order: deletes, inserts, updates, each kind in the order held.
    private func write(_ operations: [DeltaOperation]) throws {
        for kind in 0...2 {
            for operation in operations where operation.kind == kind { try writer.write(operation) }
        }
    }

    /// A large table keyed by one integer (a Core Data entity's `Z_PK`) is read in two halves of its
    /// keys at once, the upper half on a second connection on the other core; each half's changes are
    /// held, then written kind by kind, lower half first, so the order is the same. Nil when the table
    /// is not such a table, or its changes are more than either half may hold.
    private func splitKeyed() throws -> (operations: Int, tally: ChangeTally?)? {
        guard let path = newStorePath, let basePath, table.keyColumns.count == 1 else { return nil }
        let (key, name) = (quoteIdentifier(table.columns[table.keyColumns[0]]), quoteIdentifier(table.name))
        let declared = try String.fetchOne(
            db, sql: "SELECT type FROM pragma_table_info(?, 'main') WHERE name = ?",
            arguments: [table.name, table.columns[table.keyColumns[0]]])
        guard declared?.uppercased() == "INTEGER", try Int.fetchOne(db, sql: "SELECT count(*) FROM main.\(name)") ?? 0 >= splitRows,
            let middle = try Int64.fetchOne(
                db, sql: "SELECT \(key) FROM main.\(name) ORDER BY \(key) LIMIT 1 OFFSET (SELECT count(*) / 2 FROM main.\(name))")
        else { return nil }
        let (table, index, limit, tally) = (self.table, self.index, maxHeldBytes, self.tally)
        let upper = BackgroundWork { () throws -> ([DeltaOperation], ChangeTally?)? in
            let queue = try StoreDatabase.openReadOnly(path)
            defer { try? queue.close() }
            return try queue.inDatabase { db in
                try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [StoreDatabase.immutableURI(basePath)])
                defer { try? db.execute(sql: "DETACH DATABASE base") }
                var counted = tally
                return try Self.held(MergedTables(table: table, index: index, db: db, keys: (middle, nil)), limit: limit, tally: &counted)
                    .map { ($0, counted) }
            }
        }
        // Waited for on every way out: the other half never reads on past this diff.
        defer { _ = try? upper.value() }
        var counted = tally
        let lower = try Self.held(MergedTables(table: table, index: index, db: db, keys: (nil, middle)), limit: limit, tally: &counted)
        guard let lower, let (upper, upperTally) = try upper.value() else { return nil }
        if let upperTally { counted?.append(upperTally) }
        try write(lower + upper)
        return (lower.count + upper.count, counted)
    }

    /// Every operation of `merge`, or nil past `limit` bytes of them; `tally` counts them all either way.
    private static func held(_ merge: MergedTables, limit: Int, tally: inout ChangeTally?) throws -> [DeltaOperation]? {
        var held: [DeltaOperation] = []
        var bytes = 0
        var within = true
        try merge.run(tally: &tally) { operation in
            guard within else { return }
            bytes += operation.approximateBytes
            if bytes > limit {
                within = false
                held = []
            } else {
                held.append(operation)
            }
        }
        return within ? held : nil
    }

    /// A table without a primary key: when its rows differ at all, cleared and written whole.
    private func whole() throws -> Int {
        let list = columns("t", Array(table.columns.indices))
        let differs =
            try Bool.fetchOne(
                db,
                sql: """
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
        let rows = try Row.fetchCursor(statement)
        let row = StoreConnection.Row(borrowing: statement.sqliteStatement)
        while try rows.next() != nil {
            try body((0..<row.count).map(row.value))
        }
    }
}
