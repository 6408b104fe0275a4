import Foundation
internal import GRDB
import SeedModel

extension SQLiteStore {
    /// Applies `changes` in one transaction, calling `beforeCommit` before it commits.
    public func save(_ changes: StoreChanges, beforeCommit: () throws -> Void) throws -> SaveOutcome {
        if isReadOnly, !changes.isEmpty {
            let entity =
                changes.inserts.first?.entity ?? changes.updates.first?.entity ?? changes.deletes.first?.entity
                ?? changes.links.first?.entity
            let what = entity.map { "cannot save changes to \($0)" } ?? "cannot save its metadata"
            throw StoreError(
                .refused, path: path,
                "the store \(storeDescription.displayName) was added read-only: \(what); save them to a writable store")
        }
        var outcome = SaveOutcome(insertedKeys: [], updatedVersions: [])
        var newMetadata = metadata
        do {
            try queue.inDatabase { db in
                // IMMEDIATE takes the write lock at BEGIN, where the busy timeout applies; a deferred
                // transaction that read first fails at once (SQLITE_BUSY) when another writer got there.
                try db.inTransaction(.immediate) {
                    // Foreign keys are checked at each statement, not deferred to COMMIT: a link to a row
                    // another save deleted fails this store before any store after it has committed.
                    try checkVersions(db, changes)
                    var pendingLinks = changes.links
                    outcome.insertedKeys = try insertRows(db, changes.inserts, links: &pendingLinks)
                    for update in changes.updates {
                        outcome.updatedVersions.append(try apply(update, db))
                    }
                    for link in pendingLinks {
                        try apply(link, db, insertedKeys: outcome.insertedKeys)
                    }
                    var visited = Set<String>()
                    for delete in changes.deletes {
                        try deleteRow(db, entity: delete.entity, key: delete.key, visited: &visited)
                    }
                    if let metadata = changes.metadata {
                        newMetadata = newMetadata.replacingCustomKeys(with: metadata)
                        try newMetadata.write(to: db)
                    }
                    try willCommit(db)
                    try beforeCommit()
                    return .commit
                }
            }
        } catch {
            didRollBack()
            if error is SaveConflict { throw error }
            throw StoreError(error, path: path, doing: "cannot save")
        }
        metadata = newMetadata
        try didCommit()
        return outcome
    }

    /// Refuses the save when a row to update or delete changed (or vanished) since it was fetched.
    private func checkVersions(_ db: Database, _ changes: StoreChanges) throws {
        var conflicts: [SaveConflict.Row] = []
        let checks =
            changes.updates.filter { !$0.force }.map { ($0.entity, $0.key, $0.expectedVersion) }
            + changes.deletes.map { ($0.entity, $0.key, $0.expectedVersion) }
        for (entity, key, expected) in checks {
            let table = try table(entity)
            let keyColumn = quoteIdentifier(table.keyColumn)
            let version = try Int64.fetchOne(
                db,
                sql:
                    "SELECT \(versionExpression(table: table, alias: "t0")) FROM \(quoteIdentifier(table.name)) AS t0 WHERE t0.\(keyColumn) = ?",
                arguments: [key.databaseValue])
            guard version != expected else { continue }
            let stored = version == nil ? nil : try storedRow(db, table: table, key: key)
            conflicts.append(SaveConflict.Row(entity: entity, key: key, expectedVersion: expected, stored: stored))
        }
        if !conflicts.isEmpty { throw SaveConflict(storeIdentifier: identifier, storeName: storeDescription.displayName, rows: conflicts) }
    }

    func storedRow(_ db: Database, table: EntityTable, key: StoreValue) throws -> StoreRow? {
        var reader = TableRowReader(table: table)
        let select = (reader.columns.map { "t0." + quoteIdentifier($0.name) } + [versionExpression(table: table, alias: "t0")]).joined(
            separator: ", ")
        let cursor = try StoreValueCursor(
            db, sql: "SELECT \(select) FROM \(quoteIdentifier(table.name)) AS t0 WHERE t0.\(quoteIdentifier(table.keyColumn)) = ?",
            arguments: [key])
        guard try cursor.next() else { return nil }
        var values = (0..<reader.columns.count).map(cursor.value(at:))
        let (entity, layout) = reader.finishRow(&values, from: 0, entity: table.entity.name)
        return StoreRow(
            entity: entity, key: key, storage: RowValues(layout: layout, columns: values),
            version: cursor.value(at: values.count).integerValue ?? 1)
    }

    /// Inserts rows, tables a to-one column references first, taking each to-one stored on the
    /// inserted row from `links` so required references are set by the INSERT itself.
    private func insertRows(_ db: Database, _ inserts: [StoreChanges.Insert], links: inout [StoreChanges.Link]) throws -> [StoreValue] {
        let order = Dictionary(uniqueKeysWithValues: schema.tables.enumerated().map { ($1.entity.name, $0) })
        func position(_ entity: String) -> Int { schema.table(for: entity).flatMap { order[$0.entity.name] } ?? 0 }
        let sequence = inserts.indices.sorted { (position(inserts[$0].entity), $0) < (position(inserts[$1].entity), $1) }
        var keys = [StoreValue?](repeating: nil, count: inserts.count)
        for index in sequence {
            let insert = inserts[index]
            let table = try table(insert.entity)
            var values = insert.values
            links.removeAll { link in
                // A one-to-one that Core Data keeps on both sides, or a to-one into a tree (with its entity
                // number column), is written by its link, which sets the other columns too.
                guard link.kind == .set, link.source == .inserted(index), link.entity == insert.entity,
                    schema.storage.place(of: link.relationship, in: table.entity.name) == .column,
                    !schema.storage.isMirrored(link.relationship, in: table.entity.name),
                    table.entityColumn(forToOne: link.relationship) == nil
                else { return false }
                switch link.destination {
                case nil: values[link.relationship] = .null
                case .stored(let key): values[link.relationship] = key
                case .inserted(let other):
                    guard let key = keys[other] else { return false }
                    values[link.relationship] = key
                }
                return true
            }
            var names: [String] = []
            var arguments: [StoreValue] = []
            for column in table.columns {
                switch column.kind {
                case .entity:
                    names.append(column.name)
                    arguments.append(table.entityValue(insert.entity))
                case .version:
                    names.append(column.name)
                    arguments.append(1)
                default:
                    guard let property = column.property, let value = values[property],
                        table.column(for: property, of: insert.entity)?.name == column.name
                    else { continue }
                    names.append(column.name)
                    arguments.append(table.encode(value, in: column))
                }
            }
            if let key = try table.allocateKey(in: db) {
                names.append(table.keyColumn)
                arguments.append(key)
            }
            let sql =
                names.isEmpty
                ? "INSERT INTO \(quoteIdentifier(table.name)) DEFAULT VALUES"
                : "INSERT INTO \(quoteIdentifier(table.name)) (\(names.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
            try db.execute(sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
            switch table.primaryKey {
            case .rowid: keys[index] = .integer(db.lastInsertedRowID)
            case .attribute(let name): keys[index] = values[name] ?? .null
            }
        }
        return keys.map { $0 ?? .null }
    }

    /// Writes changed attributes and bumps the row's version; returns the new version.
    private func apply(_ update: StoreChanges.Update, _ db: Database) throws -> Int64 {
        let table = try table(update.entity)
        let names = update.values.keys.sorted()
        let columns = names.map { table.column(for: $0, of: update.entity) }
        if !names.isEmpty {
            let assignments = zip(names, columns).map { "\(quoteIdentifier($1?.name ?? $0)) = ?" }.joined(separator: ", ")
            let values = zip(names, columns).map { name, column in
                column.map { table.encode(update.values[name]!, in: $0) } ?? update.values[name]!
            }
            try db.execute(
                sql: "UPDATE \(quoteIdentifier(table.name)) SET \(assignments) WHERE \(quoteIdentifier(table.keyColumn)) = ?",
                arguments: StatementArguments(values.map(\.databaseValue) + [update.key.databaseValue]))
        }
        if let version = table.versionColumn {
            let column = quoteIdentifier(version)
            let key = quoteIdentifier(table.keyColumn)
            try db.execute(
                sql: "UPDATE \(quoteIdentifier(table.name)) SET \(column) = coalesce(\(column), 1) + 1 WHERE \(key) = ?",
                arguments: [update.key.databaseValue])
            return try Int64.fetchOne(
                db, sql: "SELECT \(column) FROM \(quoteIdentifier(table.name)) WHERE \(key) = ?", arguments: [update.key.databaseValue])
                ?? 2
        }
        // Versions are kept by table, so an object fetched as its parent entity has the same one.
        try db.execute(
            sql:
                "INSERT INTO \(ObjectVersionTable.name) (entity, key, version) VALUES (?, ?, 2) ON CONFLICT (entity, key) DO UPDATE SET version = version + 1",
            arguments: [table.entity.name, update.key.databaseValue])
        return try Int64.fetchOne(
            db, sql: "SELECT version FROM \(ObjectVersionTable.name) WHERE entity = ? AND key = ?",
            arguments: [table.entity.name, update.key.databaseValue]) ?? 2
    }
}
