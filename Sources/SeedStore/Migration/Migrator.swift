import Foundation
internal import GRDB
import SeedModel

/// Applies an inferred lightweight migration to a SQLite seed store, writing a new file.
///
/// The source is never changed: it is copied under a temporary name beside the output, migrated in
/// one transaction, checked (`foreign_key_check`, `integrity_check`, row counts), stamped with the
/// new model's hashes and a `migratedFrom` entry, compacted, synced and renamed into place. A
/// failure anywhere leaves no output file. Each table of the new shape is rebuilt from the old one
/// (SQLite's documented procedure: new table, copy with expressions, drop old, indexes), which
/// covers renames, added and removed columns, optionality and links moving between a column and a
/// join table alike. Like Core Data's
/// [migratePersistentStore](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/migratepersistentstore(_:to:options:type:)),
/// it is a "Save As" into the new model.
public struct Migrator: Sendable {
    /// A migrator.
    public init() {}

    /// What a migration did.
    public struct Result: Sendable {
        /// The lightweight migration that was inferred and applied.
        public var plan: MigrationPlan
        /// The migrated store.
        public var outputPath: String
        /// Entity → rows after the migration.
        public var rowCounts: [String: Int64]
        /// "Entity.relationship" → links dropped because a to-many became a to-one.
        public var droppedLinks: [String: Int]
    }

    /// Reads the model a store was built with (its `seed_model` table) and its configuration.
    public static func embeddedModel(of path: String) throws -> (model: Model, configuration: String, metadata: StoreMetadata) {
        try embeddedModel(of: path, in: StoreDatabase.openReadOnly(path))
    }

    /// Reads the model a store was built with through an open queue, then closes it.
    static func embeddedModel(of path: String, in queue: DatabaseQueue) throws -> (
        model: Model, configuration: String, metadata: StoreMetadata
    ) {
        defer { try? queue.close() }
        return try queue.read { db in
            try StoreDatabase.checkSeedStore(db, path: path)
            let metadata = try StoreMetadata.read(from: db)
            let (model, configuration) = try StoreDatabase.embeddedModel(db, path: path)
            // A Core Data seed embeds the whole model it is stamped for (Core Data numbers entities
            // over all of it); the model of the store is its configuration's, as in the plain layout.
            return (try model.restricted(to: configuration), configuration, metadata)
        }
    }

    /// Migrates `source` to `destination`'s shape of the store's configuration, writing `output`
    /// (read-only by default, as seeds are; the coordinator keeps a writable store's mode), stamped
    /// with the hashes of every entity of `destination` — pass the model the store will be opened
    /// under (the merged model, for a seed beside user stores).
    /// - Throws: `MigrationRefusal` when no lightweight migration exists; `StoreError` when a check fails.
    public func migrate(_ source: String, to destination: Model, output: String, outputMode: mode_t = 0o444) throws -> Result {
        try AtomicFile.checkFolder(for: output)
        // The file is copied below: a log of changes beside it must be in it first.
        try StoreFile.foldWriteAheadLog(source)
        if try StoreFile.layout(at: source) == .coreData {
            return try migrateCoreDataStore(source, to: destination, output: output, outputMode: outputMode)
        }
        let (sourceModel, configuration, metadata) = try Self.embeddedModel(of: source)
        let plan = try MappingInference.infer(from: sourceModel, to: destination, configuration: configuration)
        // A store converted from Core Data's layout keeps its forms and conventions through the migration.
        let conventions = CoreDataConventions(metadata[StoreMetadata.Key.coreDataLayout])
        let oldSchema = try StoreSchema(model: sourceModel, configuration: configuration, conventions: conventions)
        let newSchema = try StoreSchema(model: destination, configuration: configuration, conventions: conventions)

        let temporary = AtomicFile.temporaryPath(for: output)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        do {
            try FileManager.default.copyItem(atPath: source, toPath: temporary)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: temporary)
        } catch {
            throw StoreError(.io, path: output, "cannot copy the store to migrate it: \(error.localizedDescription)")
        }
        var configurationGRDB = GRDB.Configuration()
        configurationGRDB.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: temporary, configuration: configurationGRDB)
        var result = Result(plan: plan, outputPath: output, rowCounts: [:], droppedLinks: [:])
        do {
            try queue.inDatabase { db in
                try db.inTransaction {
                    // Count what is there rather than trust the metadata: a writable store changes after it is stamped.
                    var before: [String: Int64] = [:]
                    for table in oldSchema.tables {
                        for entity in table.members { before[entity] = try oldSchema.rowCount(of: entity, in: db) }
                    }
                    var rebuild = TableRebuild(db: db, old: oldSchema, new: newSchema, plan: plan, path: source)
                    try rebuild.run()
                    result.droppedLinks = rebuild.droppedLinks
                    result.rowCounts = try rebuild.checkRowCounts(expected: before)
                    try stamp(db, metadata: metadata, model: destination, schema: newSchema, rowCounts: result.rowCounts)
                    return .commit
                }
                try check(db, path: output)
                try db.execute(sql: "VACUUM; PRAGMA journal_mode = DELETE")
            }
            try queue.close()
        } catch {
            try? queue.close()
            throw error
        }
        try ExternalDataFolder.copyAll(from: source, to: output)
        try AtomicFile.commit(temporary, to: output, mode: outputMode)
        return result
    }

    /// Migrates a store in Core Data's layout through the plain one: converted, rebuilt, converted back,
    /// laid out (and numbered) for the destination model.
    private func migrateCoreDataStore(_ source: String, to destination: Model, output: String, outputMode: mode_t) throws -> Result {
        let plainSource = AtomicFile.temporaryPath(for: output) + "-from"
        let plainOutput = AtomicFile.temporaryPath(for: output) + "-to"
        defer {
            for path in [plainSource, plainOutput] {
                try? FileManager.default.removeItem(atPath: path)
                ExternalDataFolder.remove(forStore: path)
            }
        }
        try LayoutConversion.convert(source, to: .plain, output: plainSource, outputMode: 0o644)
        var result = try migrate(plainSource, to: destination, output: plainOutput, outputMode: 0o644)
        try LayoutConversion.convert(plainOutput, to: .coreData, output: output, model: destination, outputMode: outputMode)
        result.outputPath = output
        return result
    }

    private func check(_ db: Database, path: String) throws {
        if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
            throw StoreError(
                .refused, path: path,
                "foreign_key_check failed after migrating (table \(violation[0] ?? "?"), row \(violation[1] ?? "?")); the migration was not written"
            )
        }
        let integrity = try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "?"
        guard integrity == "ok" else {
            throw StoreError(.refused, path: path, "integrity_check failed after migrating: \(integrity); the migration was not written")
        }
    }

    /// New hashes, model identity, row counts, digest and UUID, and where the store came from.
    private func stamp(_ db: Database, metadata old: StoreMetadata, model: Model, schema: StoreSchema, rowCounts: [String: Int64]) throws {
        typealias Key = StoreMetadata.Key
        var metadata = old
        let hashes = model.entityVersionHashes
        metadata[Key.versionHashes] = .object(hashes.mapValues { .string($0.hexString) })
        metadata[Key.modelName] = .string(model.name)
        metadata[Key.modelVersionIdentifiers] = .array(model.versionIdentifiers.map(JSONValue.string))
        metadata[Key.hashEncodingVersion] = .integer(Int64(Model.hashEncodingVersion))
        metadata[Key.rowCounts] = .object(rowCounts.mapValues(JSONValue.integer))
        let digest = try ContentDigest.compute(db, schema: schema)
        metadata[Key.contentDigest] = .string(digest)
        metadata[Key.storeUUID] = .string(ContentDigest.storeUUID(fromDigest: digest))
        // The destination model numbers the entities again, as in a new store; the conventions stay.
        if let conventions = CoreDataConventions(old[Key.coreDataLayout]) {
            metadata[Key.coreDataLayout] = CoreDataConventions(frameworkVersion: conventions.frameworkVersion).jsonValue
        }
        metadata["migratedFrom"] = .object([
            "modelName": old[Key.modelName] ?? .null,
            "modelVersionIdentifiers": old[Key.modelVersionIdentifiers] ?? .null,
            "versionHashes": old[Key.versionHashes] ?? .null,
            "contentDigest": old[Key.contentDigest] ?? .null,
        ])
        try metadata.write(to: db)
        try db.execute(sql: "DELETE FROM \(StoreMetadata.modelTableName)")
        try db.execute(
            sql: "INSERT INTO \(StoreMetadata.modelTableName) (configuration, model) VALUES (?, ?)",
            arguments: [
                schema.configuration, String(decoding: try model.canonicalJSON(configuration: schema.configuration), as: UTF8.self),
            ])
    }
}
