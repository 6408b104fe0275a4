import Foundation
internal import GRDB
import SeedModel

extension SQLiteStore {
    /// Rows per batch when copying a store.
    static let copyBatchSize = 1_000

    /// Writes a copy of this store's file with `VACUUM INTO`, synced and renamed into place.
    func vacuum(into path: String) throws {
        try AtomicFile.replace(path, mode: 0o644) { temporary throws(StoreError) in
            do {
                try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [temporary]) }
            } catch {
                throw StoreError(error, path: path, doing: "cannot copy the store")
            }
        }
    }

    /// Replaces this (new, empty) store's rows and metadata with `source`'s, table by table in key
    /// order, `copyBatchSize` rows at a time, in one transaction; an atomic store then writes its file.
    func copyContents(of source: SQLiteStore, metadata: StoreMetadata) throws {
        var tables: [(name: String, keys: [String])] = schema.tables.map { ($0.name, [$0.keyColumn]) }
        tables += schema.joinTables.map { ($0.name, ["source", "destination"]) }
        if source.hasVersionTable { tables.append((ObjectVersionTable.name, ["entity", "key"])) }
        do {
            try queue.inDatabase { db in
                try db.inTransaction {
                    try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                    for (name, keys) in tables {
                        try copyTable(name, keys: keys, from: source, into: db)
                    }
                    try metadata.write(to: db)
                    try willCommit(db)
                    return .commit
                }
            }
        } catch {
            didRollBack()
            throw StoreError(error, path: path, doing: "cannot copy the objects of \(source.storeDescription.displayName)")
        }
        self.metadata = metadata
        try didCommit()
    }

    private func copyTable(_ name: String, keys: [String], from source: SQLiteStore, into db: Database) throws {
        let table = quoteIdentifier(name)
        let keyList = keys.map(quoteIdentifier).joined(separator: ", ")
        var last: [DatabaseValue]?
        while true {
            let rows: [Row] = try source.queue.read { sourceDB in
                if let last {
                    let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ", ")
                    return try Row.fetchAll(
                        sourceDB,
                        sql:
                            "SELECT * FROM \(table) WHERE (\(keyList)) > (\(placeholders)) ORDER BY \(keyList) LIMIT \(Self.copyBatchSize)",
                        arguments: StatementArguments(last))
                }
                return try Row.fetchAll(sourceDB, sql: "SELECT * FROM \(table) ORDER BY \(keyList) LIMIT \(Self.copyBatchSize)")
            }
            guard let final = rows.last else { return }
            let columns = Array(final.columnNames)
            let insert = try db.cachedStatement(
                sql:
                    "INSERT INTO \(table) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
            )
            for row in rows {
                try insert.execute(arguments: StatementArguments(Array(row.databaseValues)))
            }
            last = keys.map { final[$0] as DatabaseValue }
            if rows.count < Self.copyBatchSize { return }
        }
    }
}
