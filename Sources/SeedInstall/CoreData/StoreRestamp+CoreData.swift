import Foundation
import SeedModel

/// A seed in Core Data's layout, renumbered in place from the entity numbers of its `Z_PRIMARYKEY`
/// to those of the app's model, and stamped for that model (``StoreRestamp``).
///
/// Both layouts come from the app's model: the seed's entities have the same hashes there, so the
/// same tables and columns, and differ only by the numbers their names and values carry. Tables and
/// columns are matched by what they hold (root entity, property), never by name.
struct CoreDataRenumbering {
    let store: StoreConnection
    let model: Model
    let configuration: String

    /// Renumbers the store and writes `metadata` (with its digest and UUID) for the app's model.
    /// - Returns: whether any table, column, index or row was rewritten (beyond the metadata tables).
    func stamp(_ metadata: inout StoreMetadata) throws(StoreError) -> Bool {
        let stored = try StoreFile.entityNumbers(in: store)
        let old: CoreDataSchema
        let new: CoreDataSchema
        do {
            old = try CoreDataSchema(
                model: model, configuration: configuration,
                conventions: CoreDataConventions(entityNumbers: stored, joinTableNames: try CoreDataConventions.joinTableNames(in: store)))
            new = try CoreDataSchema(model: model, configuration: configuration)
        } catch {
            throw StoreError(.refused, path: store.path, "cannot lay the seed out for the app's model: \(error)")
        }
        // The seed's entity numbers as stored → as the app's model numbers them.
        var numbers: [Int: Int] = [:]
        var renumbered: Set<String> = []
        for table in new.tables {
            for member in table.members {
                guard let from = stored[member], let to = new.entityNumbers[member] else {
                    throw StoreError(
                        .notASeedStore, path: store.path,
                        "Z_PRIMARYKEY has no row for \(member), an entity of \(configuration); the store is damaged")
                }
                numbers[from] = to
                if from != to { renumbered.insert(member) }
            }
        }
        var rewritten = false
        for table in new.tables {
            guard let before = old.tables.first(where: { $0.root == table.root }) else { continue }
            if try renameColumns(of: before, to: table) { rewritten = true }
            if try renumberRows(of: table, numbers, entityColumn: table.members.contains(where: renumbered.contains)) { rewritten = true }
        }
        // A self-referential pair's view reads its join table under the other name: set aside while
        // the tables are renamed, then made for the app's numbers (docs/store-format.md).
        let views = (old: old.joinTables.compactMap(\.viewStatement), new: new.joinTables.compactMap(\.viewStatement))
        if views.old != views.new {
            for view in old.joinTables.compactMap(\.alsoReadableAs) { try store.execute("DROP VIEW \(view)") }
            rewritten = true
        }
        if try rebuildJoinTables(old: old, new: new) { rewritten = true }
        if views.old != views.new {
            for statement in views.new { try store.execute(statement) }
        }
        if try replaceIndexes(new) { rewritten = true }
        try new.writePrimaryKeys(to: store)

        let digest: String
        if rewritten || metadata.contentDigest == nil {
            digest = try ContentDigest.compute(store, tables: new.contentDumps)
        } else {
            digest = metadata.contentDigest!
        }
        metadata[StoreMetadata.Key.contentDigest] = .string(digest)
        // The seed's UUID is its channel's: Core Data's object IDs name it, so a re-stamp keeps it.
        if metadata.storeUUID == nil { metadata[StoreMetadata.Key.storeUUID] = .string(ContentDigest.storeUUID(fromDigest: digest)) }
        // The whole model the store is now stamped for, as a build for it would embed it.
        var written = metadata
        written[StoreMetadata.CoreDataKey.model] = .string(String(decoding: model.canonicalJSON(), as: UTF8.self))
        try written.write(to: store)
        return rewritten
    }

    /// Renames the columns whose names carry entity numbers (`Z<n>_<REL>`, `Z<n><REL>`), in two
    /// steps so that two columns trading names never collide.
    private func renameColumns(of before: CoreDataSchema.Table, to after: CoreDataSchema.Table) throws(StoreError) -> Bool {
        let oldNames = Dictionary(before.columns.map { ($0.kind, $0.name) }, uniquingKeysWith: { first, _ in first })
        var renames: [(from: String, to: String)] = []
        for column in after.columns {
            guard let name = oldNames[column.kind] else {
                throw StoreError(
                    .notASeedStore, path: store.path,
                    "\(after.name) lacks the column for \(column.kind); the store does not match its hashes")
            }
            if name != column.name { renames.append((name, column.name)) }
        }
        for (index, rename) in renames.enumerated() {
            try store.execute("ALTER TABLE \(after.name) RENAME COLUMN \(rename.from) TO restamp_\(index)")
        }
        for (index, rename) in renames.enumerated() {
            try store.execute("ALTER TABLE \(after.name) RENAME COLUMN restamp_\(index) TO \(rename.to)")
        }
        return !renames.isEmpty
    }

    /// Rewrites the entity numbers rows hold: `Z_ENT` (when `entityColumn`: a member's number
    /// changed), and the destination's number in each to-one entity column.
    private func renumberRows(of table: CoreDataSchema.Table, _ numbers: [Int: Int], entityColumn: Bool) throws(StoreError) -> Bool {
        let changed = numbers.filter { $0.key != $0.value }.sorted { $0.key < $1.key }
        guard !changed.isEmpty else { return false }
        var columns = entityColumn ? ["Z_ENT"] : []
        for column in table.columns {
            if case .toOneEntity = column.kind { columns.append(column.name) }
        }
        guard !columns.isEmpty else { return false }
        let sets = columns.map { column in
            "\(column) = CASE \(column) " + changed.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ") + " ELSE \(column) END"
        }
        try store.execute("UPDATE \(table.name) SET \(sets.joined(separator: ", "))")
        return true
    }

    /// Many-to-many join tables are named, and their columns ordered, by the numbers of their two
    /// sides: each whose name or columns differ is set aside, created as the app's model lays it
    /// out, filled from the old one by what each column holds, and the old one dropped.
    private func rebuildJoinTables(old: CoreDataSchema, new: CoreDataSchema) throws(StoreError) -> Bool {
        func pair(_ join: CoreDataSchema.JoinTable) -> Set<String> {
            ["\(join.relationship.entity).\(join.relationship.name)", "\(join.inverse.entity).\(join.inverse.name)"]
        }
        var changed: [(old: CoreDataSchema.JoinTable, new: CoreDataSchema.JoinTable)] = []
        for join in new.joinTables {
            guard let before = old.joinTables.first(where: { pair($0) == pair(join) }) else { continue }
            if before.name != join.name || before.columns.map(\.name) != join.columns.map(\.name) { changed.append((before, join)) }
        }
        for (index, tables) in changed.enumerated() {
            try store.execute("ALTER TABLE \(tables.old.name) RENAME TO restamp_join_\(index)")
        }
        for (index, tables) in changed.enumerated() {
            let oldNames = Dictionary(tables.old.columns.map { ($0.kind, $0.name) }, uniquingKeysWith: { first, _ in first })
            let columns = tables.new.columns.compactMap { column in oldNames[column.kind].map { (column.name, $0) } }
            try store.execute(tables.new.createStatement)
            try store.execute(
                "INSERT INTO \(tables.new.name) (\(columns.map(\.0).joined(separator: ", "))) SELECT \(columns.map(\.1).joined(separator: ", ")) FROM restamp_join_\(index)"
            )
            try store.execute("DROP TABLE restamp_join_\(index)")
        }
        return !changed.isEmpty
    }

    /// Drops the indexes the app's layout does not have (their names or columns carry old numbers)
    /// and creates those it has that are missing; an index already as wanted is kept as it is.
    private func replaceIndexes(_ new: CoreDataSchema) throws(StoreError) -> Bool {
        let wanted = new.indexStatements(model: model)
        var existing: [(name: String, sql: String)] = []
        try store.forEachRow("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name") { row in
            if case .text(let name) = row.value(0), case .text(let sql) = row.value(1) { existing.append((name, sql)) }
        }
        let wantedSet = Set(wanted)
        let stale = existing.filter { !wantedSet.contains($0.sql) }
        for index in stale {
            try store.execute("DROP INDEX \(index.name)")
        }
        let kept = Set(existing.map(\.sql)).intersection(wantedSet)
        let missing = wanted.filter { !kept.contains($0) }
        for statement in missing {
            try store.execute(statement)
        }
        return !stale.isEmpty || !missing.isEmpty
    }
}
