import Foundation
import GRDB
import SeedModel
import SeedStore

extension SeedBuilder {
    /// Stamps the loaded store: foreign-key check, content digest, metadata, embedded model, header
    /// stamps, `ANALYZE`, `VACUUM` when rows were removed, and rollback-journal mode.
    func finish(
        _ working: String, schema: StoreSchema, request: BuildRequest, derived: [StoreSchema.DerivedUpdate], loads: inout Loads
    ) throws -> StoreMetadata {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: working, configuration: configuration)
        defer { try? queue.close() }
        return try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            if let first = violations.first {
                throw IngestError(
                    .badData, file: working,
                    "\(violations.count) rows break a foreign key (first: table \(first[0] ?? "?"), row \(first[1] ?? "?")); this is a seedbuild bug, please report it"
                )
            }
            if !derived.isEmpty {
                StoreSchema.registerDerivedFunctions(in: db)
                // The digests hashed while loading saw the derived columns empty.
                for update in derived { loads.tableDigests[update.table] = nil }
                try loads.timings.measure("derived values") {
                    for update in derived { try db.execute(sql: update.sql, arguments: update.arguments) }
                }
            }
            let digest = try loads.timings.measure("digest") { try ContentDigest.compute(db, schema: schema, known: loads.tableDigests) }
            var metadata = try makeMetadata(schema: schema, request: request, loads: loads, digest: digest)
            if schema.coreData == nil {
                metadata[BaseRelease.highWaterKey] = .object(try Self.highWater(schema, db: db, base: request.baseRelease))
            }
            try db.inTransaction {
                try metadata.stamp(db, schema: schema)
                // Z_MAX never goes down: numbers of removed objects are never issued again.
                for (entity, highest) in request.baseRelease?.highWater ?? [:] where schema.coreData != nil {
                    try db.execute(
                        sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?) WHERE Z_NAME = ? AND Z_SUPER = 0", arguments: [highest, entity])
                }
                return .commit
            }
            // A bounded analysis keeps ANALYZE quick on millions of rows; its statistics are still deterministic.
            try loads.timings.measure("analyze") { try db.execute(sql: "PRAGMA analysis_limit = 2000; ANALYZE") }
            try loads.timings.measure("compact") {
                if try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 > 0 {
                    try db.execute(sql: "VACUUM")
                }
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
            }
            return metadata
        }
    }

    private func makeMetadata(schema: StoreSchema, request: BuildRequest, loads: Loads, digest: String) throws -> StoreMetadata {
        typealias Key = StoreMetadata.Key
        let hashes = schema.wholeModel.entityVersionHashes
        var metadata = StoreMetadata()
        metadata[Key.storeType] = "SQLite"
        // The channel's, not the content's: Core Data's object IDs name it, and they outlive a release.
        metadata[Key.storeUUID] = .string(
            BaseRelease.storeUUID(
                dataset: request.dataset,
                modelVersion: BaseRelease.modelVersion(identifiers: request.model.versionIdentifiers, versionHashes: hashes)))
        metadata[BaseRelease.datasetKey] = .string(request.dataset)
        metadata[Key.modelName] = .string(request.model.name)
        metadata[Key.modelVersionIdentifiers] = .array(request.model.versionIdentifiers.map(JSONValue.string))
        metadata[Key.configuration] = .string(schema.configuration)
        metadata[Key.versionHashes] = .object(hashes.mapValues { .string($0.hexString) })
        metadata[Key.hashEncodingVersion] = .integer(Int64(Model.hashEncodingVersion))
        metadata[Key.storeFormatVersion] = .integer(Int64(StoreMetadata.storeFormatVersion))
        metadata[Key.dataVersion] = .integer(request.effectiveDataVersion)
        metadata[Key.buildTime] = .string(ISO8601DateFormatter().string(from: request.buildTime))
        metadata[Key.generator] = .string(Self.generator)
        metadata[Key.rowCounts] = .object(loads.rowCounts.mapValues { .integer(Int64($0)) })
        metadata[Key.contentDigest] = .string(digest)
        metadata[Key.sources] = .array(
            loads.sources.sorted { $0.entity < $1.entity }.map { source in
                .object([
                    "entity": .string(source.entity),
                    "file": .string(URL(fileURLWithPath: source.file).lastPathComponent),
                    "bytes": .integer(Int64(source.bytes)),
                    "sha256": .string(source.sha256),
                    "rowsRead": .integer(Int64(source.rowsRead)),
                    "rowsLoaded": .integer(Int64(source.rowsLoaded)),
                    "rowsRejected": .integer(Int64(source.rowsRejected)),
                ])
            })
        return metadata
    }

    /// The plain layout's highest key per numbered table: its highest row, or the base's mark if higher.
    static func highWater(_ schema: StoreSchema, db: Database, base: BaseRelease?) throws -> [String: JSONValue] {
        var marks: [String: JSONValue] = [:]
        for table in schema.tables where table.primaryKey == .rowid {
            let highest =
                try Int64.fetchOne(
                    db, sql: "SELECT coalesce(max(\(quoteIdentifier(table.keyColumn))), 0) FROM \(quoteIdentifier(table.name))") ?? 0
            marks[table.entity.name] = .integer(max(highest, base?.highWater[table.entity.name] ?? 0))
        }
        return marks
    }
}
