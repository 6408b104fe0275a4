import Foundation
package import GRDB
import SeedModel

/// Rewrites a store in the other layout (`seedbuild migrate --format`): the same model,
/// configuration, objects, links and metadata, in Core Data's tables or the plain ones.
///
/// ```swift
/// let metadata = try LayoutConversion.convert("seed.sqlite", to: .plain, output: "seed-plain.sqlite")
/// ```
///
/// Objects keep their keys where both layouts number rows (`Z_PK` and the plain rowid), so every
/// link is copied as it is; a plain `WITHOUT ROWID` table (which nothing references) is numbered in
/// key order. Row versions start again at 1, as after a migration.
public enum LayoutConversion {
    /// Converts `source` to `layout`, writing `output` atomically (nothing under that name until it is whole).
    /// - Parameters:
    ///   - model: the whole model the store is stamped for. Needed only to turn a plain store into
    ///     Core Data's layout when its hashes name entities beyond its configuration (Core Data lists
    ///     and numbers every entity of the model); it must have exactly the store's hashes.
    /// - Throws: ``StoreError`` naming the store and what is missing or differs.
    @discardableResult
    public static func convert(_ source: String, to layout: StoreLayout, output: String, model: Model? = nil, outputMode: mode_t = 0o444) throws -> StoreMetadata {
        try StoreFile.foldWriteAheadLog(source)
        let (embedded, configuration, metadata, oldSchema) = try read(source, model: model)
        let stamped = try stampedModel(embedded: embedded, given: model, metadata: metadata, layout: layout, path: source)
        return try write(source, metadata: metadata, oldSchema: oldSchema, model: stamped, configuration: configuration, layout: layout, output: output, outputMode: outputMode)
    }

    /// Re-stamps a seed for an app's own model: moved to SeedInstall, which the installer links.
    @available(*, deprecated, message: "use StoreRestamp.restamp(_:for:output:outputMode:) from SeedInstall")
    @discardableResult
    public static func restamp(_ source: String, for model: Model, output: String, outputMode: mode_t = 0o444) throws -> StoreMetadata {
        try StoreRestamp.restamp(source, for: model, output: output, outputMode: outputMode)
    }

    private static func write(
        _ source: String, metadata: StoreMetadata, oldSchema: StoreSchema, model stamped: Model, configuration: String, layout: StoreLayout,
        output: String, outputMode: mode_t
    ) throws -> StoreMetadata {
        let newSchema: StoreSchema
        do {
            newSchema = try StoreSchema(model: stamped, configuration: configuration, layout: layout)
        } catch {
            throw StoreError(.refused, path: source, "cannot lay the store out in the \(layout.name) layout: \(error.description)")
        }
        let temporary = AtomicFile.temporaryPath(for: output)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        try? FileManager.default.removeItem(atPath: temporary)
        var configurationGRDB = GRDB.Configuration()
        configurationGRDB.foreignKeysEnabled = false
        configurationGRDB.prepareDatabase { db in CoreDataValues.registerFunctions(in: db) }
        // A URI filename, so the source can be attached immutable (Core Data's stores are in WAL mode,
        // and a plain attach would leave -wal and -shm files beside the source).
        try AtomicFile.checkFolder(for: output)
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: "file:" + (URL(fileURLWithPath: temporary).standardizedFileURL.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? temporary), configuration: configurationGRDB)
        } catch {
            throw StoreError(.io, path: output, "cannot create the store beside it (\(error)); choose a folder that can be written")
        }
        var written = metadata
        do {
            try queue.inDatabase { db in
                if layout == .coreData { try db.execute(sql: "PRAGMA auto_vacuum = 2") }
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [StoreFile.immutableURI(source)])
                try db.inTransaction {
                    for statement in newSchema.createTableStatements { try db.execute(sql: statement) }
                    var copy = Copy(db: db, old: oldSchema, new: newSchema)
                    try copy.rows()
                    try copy.links()
                    for statement in newSchema.indexStatements { try db.execute(sql: statement) }
                    return .commit
                }
                try db.execute(sql: "DETACH DATABASE old")
                try db.inTransaction {
                    written = try stamp(db, metadata: metadata, schema: newSchema)
                    return .commit
                }
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else {
                    throw StoreError(.refused, path: output, "integrity_check failed after converting: \(integrity.prefix(3).joined(separator: "; ")); nothing was written")
                }
                try db.execute(sql: "PRAGMA analysis_limit = 2000; ANALYZE; VACUUM; PRAGMA journal_mode = DELETE")
            }
            try queue.close()
        } catch {
            try? queue.close()
            throw StoreError(error, path: output, doing: "cannot convert the store")
        }
        try AtomicFile.commit(temporary, to: output, mode: outputMode)
        return written
    }

    /// The store's embedded model (else the one given, for a Core Data store that caches none),
    /// configuration, metadata and layout.
    private static func read(_ path: String, model given: Model?) throws -> (Model, String, StoreMetadata, StoreSchema) {
        let queue = try StoreFile.openReadOnly(path)
        defer { try? queue.close() }
        return try queue.read { db in
            try StoreFile.checkSeedStore(db, path: path)
            let metadata = try StoreMetadata.read(from: db)
            let layout = try StoreFile.layout(of: db)
            let (model, configuration): (Model, String)
            do {
                (model, configuration) = try StoreFile.embeddedModel(db, path: path)
            } catch {
                guard let given, layout == .coreData else { throw error }
                (model, configuration) = (given, metadata.configuration ?? SeedModel.Configuration.defaultName)
            }
            let schema = try StoreSchema(model: model, configuration: configuration, layout: layout, entityNumbers: StoreFile.entityNumbers(in: db))
            return (model, configuration, metadata, schema)
        }
    }

    /// The model to lay the new store out from: one whose hashes are exactly the stored ones.
    private static func stampedModel(embedded: Model, given: Model?, metadata: StoreMetadata, layout: StoreLayout, path: String) throws -> Model {
        let stored = metadata.versionHashes
        if let given {
            let differences = given.hashDifferences(stored: stored, storedModel: embedded)
            guard differences.isEmpty else {
                throw StoreError(
                    .refused, path: path,
                    "the model given is not the one the store is stamped for: \(differences.map(\.description).joined(separator: "; ")); give the merged model the store was built for")
            }
            return given
        }
        let missing = Set(stored.keys).subtracting(embedded.entities.map(\.name))
        guard layout == .plain || missing.isEmpty else {
            throw StoreError(
                .refused, path: path,
                "the store is stamped for a model with \(missing.sorted().joined(separator: ", ")) beyond its configuration, which Core Data's layout lists and numbers; give that merged model (seedbuild migrate --model SEED --user-model USER)")
        }
        return embedded
    }

    /// The old metadata, with the digest, UUID and layout of the new file.
    private static func stamp(_ db: Database, metadata: StoreMetadata, schema: StoreSchema) throws -> StoreMetadata {
        var metadata = metadata
        let digest = try ContentDigest.compute(db, schema: schema)
        metadata[StoreMetadata.Key.contentDigest] = .string(digest)
        metadata[StoreMetadata.Key.storeUUID] = .string(ContentDigest.storeUUID(fromDigest: digest))
        metadata[StoreMetadata.Key.storeFormatVersion] = .integer(Int64(StoreMetadata.storeFormatVersion))
        try metadata.stamp(db, schema: schema)
        return metadata
    }
}

/// The copy of rows and links from the attached `old` database into the new tables.
private struct Copy {
    let db: Database
    let old: StoreSchema
    let new: StoreSchema
    /// Root entity → SQL selecting (old key, new key) where the two layouts key its rows differently.
    private var keyMaps: [String: String] = [:]

    init(db: Database, old: StoreSchema, new: StoreSchema) {
        self.db = db
        self.old = old
        self.new = new
    }

    /// The old table's key as the new table keys the row.
    private func newKey(_ oldTable: EntityTable, _ newTable: EntityTable, alias: String) -> String? {
        switch (oldTable.primaryKey, newTable.primaryKey) {
        case (.rowid, .rowid): return "\(alias).\(quoteIdentifier(oldTable.keyColumn))"
        case (.attribute(let key), .rowid): return "row_number() OVER (ORDER BY \(alias).\(quoteIdentifier(oldTable.columnName(for: key))))"
        case (_, .attribute): return nil
        }
    }

    mutating func rows() throws {
        for table in new.tables {
            guard let oldTable = old.table(for: table.entity.name) else { continue }
            if oldTable.primaryKey != table.primaryKey {
                // Links name the rows by key: map the old keys to the new ones once.
                let map = "keymap_\(keyMaps.count)"
                let newKeyColumn = table.primaryKey == .rowid ? newKey(oldTable, table, alias: "o")! : oldTable.readExpression(for: oldTable.column(for: table.keyColumn)!, alias: "o")
                try db.execute(sql: "CREATE TEMP TABLE \(map) AS SELECT o.\(quoteIdentifier(oldTable.keyColumn)) AS old, \(newKeyColumn) AS new FROM old.\(quoteIdentifier(oldTable.name)) AS o")
                keyMaps[table.entity.name] = map
            }
            for member in table.members {
                var columns: [String] = []
                var values: [String] = []
                for column in table.columns {
                    let value: String?
                    switch column.kind {
                    case .primaryKey: value = newKey(oldTable, table, alias: "o")
                    case .entity: value = table.entityValue(member).sqlLiteral
                    case .version: value = "1"
                    case .attribute(let attribute):
                        guard let oldColumn = oldTable.column(for: attribute.name, of: member) else { continue }
                        value = table.boundExpression(for: column).replacingOccurrences(of: "?", with: oldTable.readExpression(for: oldColumn, alias: "o"))
                    case .toOne(let relationship):
                        // Copied with the row where both layouts keep it in a column of this table, so a
                        // required one is never NULL; links() copies the rest.
                        guard old.storage.place(of: relationship.name, in: table.entity.name) == .column,
                            let oldColumn = oldTable.column(for: relationship.name, of: member),
                            let destination = new.table(for: relationship.destination), destination.primaryKey == .rowid,
                            old.table(for: relationship.destination)?.primaryKey == .rowid
                        else { continue }
                        value = "o.\(quoteIdentifier(oldColumn.name))"
                    case .toOneEntity, .toOneOrder, .toManyWithoutInverse: value = nil
                    }
                    guard let value else { continue }
                    columns.append(quoteIdentifier(column.name))
                    values.append(value)
                }
                var filter = ""
                if oldTable.isTree, let entityColumn = oldTable.entityColumn {
                    filter = " WHERE o.\(quoteIdentifier(entityColumn.name)) = \(oldTable.entityValue(member).sqlLiteral)"
                } else if member != table.members[0] {
                    continue
                }
                try db.execute(sql: """
                    INSERT INTO main.\(quoteIdentifier(table.name)) (\(columns.joined(separator: ", ")))
                    SELECT \(values.joined(separator: ", ")) FROM old.\(quoteIdentifier(oldTable.name)) AS o\(filter) ORDER BY o.\(quoteIdentifier(oldTable.keyColumn))
                    """)
            }
        }
    }

    /// Copies every relationship once, from wherever the old layout keeps it to wherever the new one does.
    mutating func links() throws {
        for table in new.tables {
            for relationship in table.entity.relationships where !relationship.isTransient {
                let place = new.storage.place(of: relationship.name, in: table.entity.name)
                if case .inverse = place { continue }
                guard let pairs = try pairs(table.entity.name, relationship) else { continue }
                defer { try? db.execute(sql: "DROP TABLE temp.pairs") }
                let destination = new.table(for: relationship.destination)
                switch place {
                case .column:
                    let name = quoteIdentifier(table.name)
                    var sets = ["\(quoteIdentifier(table.columnName(for: relationship.name))) = p.dst"]
                    if let column = table.entityColumn(forToOne: relationship.name), let destination {
                        sets.append("\(quoteIdentifier(column)) = (SELECT d.Z_ENT FROM main.\(quoteIdentifier(destination.name)) AS d WHERE d.Z_PK = p.dst)")
                    }
                    if let column = table.orderColumn(forToOne: relationship.name) {
                        sets.append("\(quoteIdentifier(column)) = p.pos")
                    }
                    try db.execute(sql: "UPDATE main.\(name) SET \(sets.joined(separator: ", ")) FROM temp.pairs AS p WHERE main.\(name).\(quoteIdentifier(table.keyColumn)) = p.src")
                case .joinTable(let join):
                    var columns = [join.sourceColumn, join.destinationColumn].map(quoteIdentifier)
                    var values = ["src", "dst"]
                    if let position = join.positionColumn {
                        columns.append(quoteIdentifier(position))
                        values.append(join.layout == .coreData ? "coalesce(pos, 1)" : "coalesce(pos, 1) - 1")
                    }
                    try db.execute(sql: "INSERT INTO main.\(quoteIdentifier(join.name)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM temp.pairs")
                case .foreignColumn(let column):
                    guard let destination else { continue }
                    let name = quoteIdentifier(destination.name)
                    try db.execute(sql: "UPDATE main.\(name) SET \(quoteIdentifier(column)) = p.src FROM temp.pairs AS p WHERE main.\(name).\(quoteIdentifier(destination.keyColumn)) = p.dst")
                case .inverse:
                    continue
                }
            }
        }
    }

    /// A temp table `pairs(src, dst, pos)` of one relationship's links in the old store, keyed as the
    /// new store keys rows, `pos` counting from 1 where the old layout keeps an order; nil when the
    /// old store does not keep the relationship.
    private func pairs(_ entity: String, _ relationship: Relationship) throws -> Bool? {
        guard let table = old.table(for: entity), let destination = old.table(for: relationship.destination) else { return nil }
        let select: String
        switch old.storage.place(of: relationship.name, in: table.entity.name) {
        case .column:
            let column = quoteIdentifier(table.columnName(for: relationship.name))
            let order = table.orderColumn(forToOne: relationship.name).map { quoteIdentifier($0) } ?? "NULL"
            select = "SELECT \(quoteIdentifier(table.keyColumn)) AS src, \(column) AS dst, \(order) AS pos FROM old.\(quoteIdentifier(table.name)) WHERE \(column) IS NOT NULL"
        case .joinTable(let join):
            let order = join.positionColumn.map { join.layout == .plain ? "\(quoteIdentifier($0)) + 1" : quoteIdentifier($0) } ?? "NULL"
            select = "SELECT \(quoteIdentifier(join.sourceColumn)) AS src, \(quoteIdentifier(join.destinationColumn)) AS dst, \(order) AS pos FROM old.\(quoteIdentifier(join.name))"
        case .foreignColumn(let column):
            select = "SELECT \(quoteIdentifier(column)) AS src, \(quoteIdentifier(destination.keyColumn)) AS dst, NULL AS pos FROM old.\(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(column)) IS NOT NULL"
        case .inverse:
            guard let inverse = relationship.inverse else { return nil }
            switch old.storage.place(of: inverse, in: destination.entity.name) {
            case .column:
                let column = quoteIdentifier(destination.columnName(for: inverse))
                let order = destination.orderColumn(forToOne: inverse).map { quoteIdentifier($0) } ?? "NULL"
                select = "SELECT \(column) AS src, \(quoteIdentifier(destination.keyColumn)) AS dst, \(order) AS pos FROM old.\(quoteIdentifier(destination.name)) WHERE \(column) IS NOT NULL"
            case .joinTable(let join):
                let order = join.positionColumn.map { join.layout == .plain ? "\(quoteIdentifier($0)) + 1" : quoteIdentifier($0) } ?? "NULL"
                select = "SELECT \(quoteIdentifier(join.destinationColumn)) AS src, \(quoteIdentifier(join.sourceColumn)) AS dst, \(order) AS pos FROM old.\(quoteIdentifier(join.name))"
            case .foreignColumn, .inverse:
                return nil
            }
        }
        let source = keyMaps[table.entity.name].map { "(SELECT new FROM temp.\($0) WHERE old = l.src)" } ?? "l.src"
        let target = keyMaps[destination.entity.name].map { "(SELECT new FROM temp.\($0) WHERE old = l.dst)" } ?? "l.dst"
        try db.execute(sql: "CREATE TEMP TABLE pairs AS SELECT \(source) AS src, \(target) AS dst, l.pos AS pos FROM (\(select)) AS l")
        return true
    }
}
