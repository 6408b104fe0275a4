import Foundation
internal import GRDB
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
/// key order. A store in Core Data's layout converted to the plain one keeps what Core Data's layout
/// needs to come back exactly as it was (`docs/store-format.md`, "Stores converted from Core Data's
/// layout"): every value as stored, row versions, both orders of a many-to-many, the entity numbers
/// and names of `Z_PRIMARYKEY` and the framework version its names follow, and persistent history's
/// `Z_PRIMARYKEY` rows and tables as they are. Files of values kept
/// outside the store (`.<name>_SUPPORT/_EXTERNAL_DATA`) are copied beside the new store.
public enum LayoutConversion {
    /// What a conversion wrote.
    public struct Result: Sendable {
        /// The new store's metadata.
        public var metadata: StoreMetadata
        /// External data files the store refers to, kept as references, that were not beside the
        /// source because it has no external data folder at all (a store copied without its
        /// `_SUPPORT` folder); those values read as they did in the source.
        public var missingExternalFiles: [String]
    }

    /// Converts `source` to `layout`, writing `output` atomically (nothing under that name until it is whole).
    /// - Parameters:
    ///   - source: the store file to convert; it is not changed.
    ///   - layout: the layout to convert to.
    ///   - output: the new store file.
    ///   - outputMode: the new file's permissions (read-only by default, as seeds are).
    ///   - model: the whole model the store is stamped for. Needed only to turn a plain store into
    ///     Core Data's layout when its hashes name entities beyond its configuration (Core Data lists
    ///     and numbers every entity of the model); it must have exactly the store's hashes.
    /// - Throws: `StoreError` naming the store and what is missing or differs, or naming the
    ///   external data files missing from the source's external data folder.
    @discardableResult
    public static func convert(_ source: String, to layout: StoreLayout, output: String, model: Model? = nil, outputMode: mode_t = 0o444)
        throws -> Result
    {
        try convert(source, to: layout, output: output, model: model, outputMode: outputMode, keepingCoreDataLayout: true)
    }

    /// Converts as ``convert(_:to:output:model:outputMode:)`` does; with `keepingCoreDataLayout` false,
    /// a store in Core Data's layout becomes a plain store as a build writes one (values in the
    /// runtime's forms, keys of unreferenced keyed tables their key attribute, one order per join
    /// table, no `coreDataLayout`), for readers of plain SQL that do not read that key.
    @discardableResult
    package static func convert(
        _ source: String, to layout: StoreLayout, output: String, model: Model? = nil, outputMode: mode_t = 0o444,
        keepingCoreDataLayout: Bool
    ) throws -> Result {
        try StoreFile.foldWriteAheadLog(source)
        let (embedded, configuration, metadata, oldSchema) = try read(source, model: model)
        let stamped = try stampedModel(embedded: embedded, given: model, metadata: metadata, layout: layout, path: source)
        return try write(
            source, metadata: metadata, oldSchema: oldSchema, model: stamped, configuration: configuration, layout: layout,
            conventions: keepingCoreDataLayout ? oldSchema.coreDataConventions : nil, output: output, outputMode: outputMode)
    }

    /// Re-stamps a seed for an app's own model: moved to SeedInstall, which the installer links.
    @available(*, deprecated, message: "use StoreRestamp.restamp(_:for:output:outputMode:) from SeedInstall")
    @discardableResult
    public static func restamp(_ source: String, for model: Model, output: String, outputMode: mode_t = 0o444) throws -> StoreMetadata {
        try StoreRestamp.restamp(source, for: model, output: output, outputMode: outputMode)
    }

    /// - Parameter conventions: those the new store follows (`StoreSchema.init(model:configuration:layout:conventions:)`).
    private static func write(
        _ source: String, metadata: StoreMetadata, oldSchema: StoreSchema, model stamped: Model, configuration: String, layout: StoreLayout,
        conventions: CoreDataConventions?, output: String, outputMode: mode_t
    ) throws -> Result {
        let newSchema: StoreSchema
        do {
            newSchema = try StoreSchema(model: stamped, configuration: configuration, layout: layout, conventions: conventions)
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
            queue = try DatabaseQueue(
                path: "file:"
                    + (URL(fileURLWithPath: temporary).standardizedFileURL.path.addingPercentEncoding(
                        withAllowedCharacters: .urlPathAllowed) ?? temporary),
                configuration: configurationGRDB)
        } catch {
            throw StoreError(.io, path: output, "cannot create the store beside it (\(error)); choose a folder that can be written")
        }
        var written = metadata
        var externalFiles: [String] = []
        do {
            try queue.inDatabase { db in
                if layout == .coreData { try db.execute(sql: "PRAGMA auto_vacuum = 2") }
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [StoreDatabase.immutableURI(source)])
                externalFiles = try ExternalDataFolder.references(in: db, schema: oldSchema, database: "old")
                try checkExternalFiles(externalFiles, of: source)
                try db.inTransaction {
                    for statement in newSchema.createTableStatements { try db.execute(sql: statement) }
                    var copy = LayoutCopy(db: db, old: oldSchema, new: newSchema)
                    try copy.rows()
                    try copy.links()
                    try copy.history(conventions?.historyEntities ?? [], source: source)
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
                    throw StoreError(
                        .refused, path: output,
                        "integrity_check failed after converting: \(integrity.prefix(3).joined(separator: "; ")); nothing was written")
                }
                try db.execute(sql: "PRAGMA analysis_limit = 2000; ANALYZE; VACUUM; PRAGMA journal_mode = DELETE")
            }
            try queue.close()
        } catch {
            try? queue.close()
            throw StoreError(error, path: output, doing: "cannot convert the store")
        }
        let folder = ExternalDataFolder.url(forStore: source)
        let present = externalFiles.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
        try ExternalDataFolder.copy(present, from: source, to: output)
        try AtomicFile.commit(temporary, to: output, mode: outputMode)
        return Result(metadata: written, missingExternalFiles: externalFiles.filter { !present.contains($0) })
    }

    /// Refuses a store whose external data folder lacks files its values refer to. A store with no
    /// such folder at all (copied without it, as the Wire project's test stores are) converts with its
    /// references kept as they are: the new store is as complete as the source.
    private static func checkExternalFiles(_ names: [String], of source: String) throws(StoreError) {
        let folder = ExternalDataFolder.url(forStore: source)
        guard !names.isEmpty, FileManager.default.fileExists(atPath: folder.path) else { return }
        let missing = names.filter { !FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
        guard missing.isEmpty else {
            throw StoreError(
                .refused, path: source,
                "values refer to external data files missing from \(folder.path): \(missing.prefix(5).joined(separator: ", "))\(missing.count > 5 ? " and \(missing.count - 5) more" : ""); restore them beside the store and convert again"
            )
        }
    }

    /// The store's embedded model (else the one given, for a Core Data store that caches none),
    /// configuration, metadata and layout.
    private static func read(_ path: String, model given: Model?) throws -> (Model, String, StoreMetadata, StoreSchema) {
        let queue = try StoreDatabase.openReadOnly(path)
        defer { try? queue.close() }
        return try queue.read { db in
            try StoreDatabase.checkSeedStore(db, path: path)
            let metadata = try StoreMetadata.read(from: db)
            let layout = try StoreDatabase.layout(of: db)
            let (model, configuration): (Model, String)
            do {
                (model, configuration) = try StoreDatabase.embeddedModel(db, path: path)
            } catch {
                guard let given, layout == .coreData else { throw error }
                (model, configuration) = (given, metadata.configuration ?? SeedModel.Configuration.defaultName)
            }
            let schema = try StoreSchema(
                model: model, configuration: configuration, layout: layout, conventions: CoreDataConventions.read(from: db))
            return (model, configuration, metadata, schema)
        }
    }

    /// The model to lay the new store out from: one whose hashes are exactly the stored ones.
    private static func stampedModel(embedded: Model, given: Model?, metadata: StoreMetadata, layout: StoreLayout, path: String) throws
        -> Model
    {
        let stored = metadata.versionHashes
        if let given {
            let differences = given.hashDifferences(stored: stored, storedModel: embedded)
            guard differences.isEmpty else {
                throw StoreError(
                    .refused, path: path,
                    "the model given is not the one the store is stamped for: \(differences.map(\.description).joined(separator: "; ")); give the merged model the store was built for"
                )
            }
            return given
        }
        let missing = Set(stored.keys).subtracting(embedded.entities.map(\.name))
        guard layout == .plain || missing.isEmpty else {
            throw StoreError(
                .refused, path: path,
                "the store is stamped for a model with \(missing.sorted().joined(separator: ", ")) beyond its configuration, which Core Data's layout lists and numbers; give that merged model (seedbuild migrate --model SEED --user-model USER)"
            )
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
