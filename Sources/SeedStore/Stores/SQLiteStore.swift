import Foundation
internal import GRDB
import SeedModel

/// A store kept in SQLite: a file, or `:memory:` for the in-memory type. The atomic types
/// (``AtomicStore``) use it too, loaded from and saved to a property-list file.
///
/// Tables follow `StoreSchema`; objects' version counters live in `seed_object_version`
/// (absent rows mean version 1), so seed stores built by the pipeline need no extra column.
public class SQLiteStore: PersistentStore {
    /// The description the store was added with.
    public let storeDescription: StoreDescription
    /// The store's metadata as last read or saved.
    public internal(set) var metadata: StoreMetadata
    /// Whether the store was added read-only.
    public var isReadOnly: Bool { storeDescription.isReadOnly }
    /// The store's UUID from its metadata (its display name when it has none).
    public var identifier: String { metadata.storeUUID ?? storeDescription.displayName }
    /// The entities of the store's configuration.
    public let entityNames: Set<String>
    let schema: StoreSchema
    let queue: DatabaseQueue
    /// Whether `seed_object_version` exists (a read-only seed built by the pipeline has none).
    private(set) var hasVersionTable = true
    /// Where the store's file is, for messages.
    var path: String { storeDescription.url?.path ?? storeDescription.displayName }

    /// Opens (or creates) a SQLite or in-memory store holding one configuration of `model`.
    /// - Throws: `StoreError` when the file is missing for a read-only store, or cannot be opened or created.
    init(description: StoreDescription, model: Model) throws {
        storeDescription = description
        let path = description.url?.path
        let exists = path.map { FileManager.default.fileExists(atPath: $0) } ?? false
        if description.type == .sqlite, let path, !exists, description.isReadOnly {
            throw StoreError(.notFound, path: path, "no such store; a read-only store must exist before it is added")
        }
        let storePath = description.type == .sqlite ? path : nil
        if let storePath, !exists {
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: storePath).deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let queue = try Self.openQueue(path: storePath, description: description)
        self.queue = queue
        do {
            // A file that exists keeps its layout; a new store takes the description's.
            let isNew = storePath == nil || !exists
            // Atomic stores keep their tables in a property list of the plain layout.
            let newLayout = description.type == .sqlite || description.type == .inMemory ? description.storeLayout : .plain
            let (layout, conventions): (StoreLayout, CoreDataConventions?) =
                isNew
                ? (newLayout, nil)
                : try queue.inDatabase { db in
                    try StoreDatabase.checkSeedStore(db, path: storePath!)
                    return (try StoreDatabase.layout(of: db), try CoreDataConventions.read(from: db))
                }
            let schema = try Self.layOut(model, description: description, layout: layout, conventions: conventions)
            self.schema = schema
            entityNames = schema.entityNames
            if isNew {
                try queue.writeWithoutTransaction { db in
                    for statement in schema.fileSetupStatements { try db.execute(sql: statement) }
                }
                metadata = try queue.write { db in try Self.initialize(db, schema: schema, storeType: description.type) }
            } else {
                metadata = try queue.inDatabase { db in
                    if !schema.keepsVersionsInRows, !description.isReadOnly, try !db.tableExists(ObjectVersionTable.name) {
                        try ObjectVersionTable.create(db)
                    }
                    return try StoreMetadata.read(from: db)
                }
            }
            hasVersionTable = try !schema.keepsVersionsInRows && queue.read { db in try db.tableExists(ObjectVersionTable.name) }
            if storePath != nil, !description.isReadOnly { try Self.setJournalMode(of: queue, description: description) }
        } catch {
            try? queue.close()
            if let storePath, !exists { try? FileManager.default.removeItem(atPath: storePath) }
            throw StoreError(error, path: path ?? description.displayName, doing: "cannot open the store")
        }
    }

    private static func layOut(
        _ model: Model, description: StoreDescription, layout: StoreLayout, conventions: CoreDataConventions?
    ) throws(StoreError) -> StoreSchema {
        do {
            return try StoreSchema(model: model, configuration: description.configurationName, layout: layout, conventions: conventions)
        } catch {
            throw StoreError(.refused, path: description.displayName, error.description)
        }
    }

    /// Puts a writable store file in the description's journal mode, once it is known to be a seed
    /// store (so a foreign file that is refused is left in its own mode).
    private static func setJournalMode(of queue: DatabaseQueue, description: StoreDescription) throws {
        if description.sqlitePragmas.keys.contains(where: { $0.lowercased() == "journal_mode" }) { return }
        let wanted = description.sqliteJournalMode.rawValue
        let mode = try queue.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = \(wanted)") }
        // SQLite answers with the mode in force, unchanged when another connection prevents the switch.
        guard mode?.uppercased() == wanted else {
            throw StoreError(
                .refused, path: description.displayName,
                "cannot put the store in journal mode \(wanted): it stays in \(mode ?? "?") mode, likely because another connection has it open; close it or use sqliteJournalMode = .\(mode?.lowercased() ?? "wal")"
            )
        }
    }

    static func openQueue(path: String?, description: StoreDescription) throws -> DatabaseQueue {
        // Pragma values cannot be bound; accept only plain words and numbers so none can smuggle SQL in.
        for (name, value) in description.sqlitePragmas
        where name.isEmpty || value.isEmpty || !(name + value).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) {
            throw StoreError(
                .refused, path: description.displayName,
                "the SQLite pragma \(name) = \(value) is not a plain name and value (letters, digits, _ and -); check sqlitePragmas")
        }
        var configuration = GRDB.Configuration()
        configuration.readonly = description.isReadOnly && path != nil
        configuration.foreignKeysEnabled = !description.isReadOnly
        configuration.busyMode = description.sqliteBusyTimeout > 0 ? .timeout(description.sqliteBusyTimeout) : .immediateError
        let pragmas = description.sqlitePragmas
        configuration.prepareDatabase { db in
            PredicateFunctions.register(in: db)
            for (name, value) in pragmas.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "PRAGMA \(quoteIdentifier(name)) = \(value)")
            }
        }
        guard let path else { return try DatabaseQueue(configuration: configuration) }
        if description.isReadOnly {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
            return try DatabaseQueue(path: "file:\(encoded)?mode=ro&immutable=1", configuration: configuration)
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Lays out an empty store: tables, indexes, version table, metadata, embedded model, header stamps.
    static func initialize(_ db: Database, schema: StoreSchema, storeType: StoreType) throws -> StoreMetadata {
        for statement in schema.createTableStatements + schema.indexStatements { try db.execute(sql: statement) }
        // Core Data's layout keeps each row's version in its Z_OPT column.
        if !schema.keepsVersionsInRows { try ObjectVersionTable.create(db) }
        typealias Key = StoreMetadata.Key
        var metadata = StoreMetadata()
        metadata[Key.storeType] = .string(storeType.rawValue)
        metadata[Key.storeUUID] = .string(UUID().uuidString)
        metadata[Key.modelName] = .string(schema.model.name)
        metadata[Key.modelVersionIdentifiers] = .array(schema.model.versionIdentifiers.map(JSONValue.string))
        metadata[Key.configuration] = .string(schema.configuration)
        let hashes = schema.wholeModel.entityVersionHashes
        metadata[Key.versionHashes] = .object(hashes.mapValues { .string($0.hexString) })
        metadata[Key.hashEncodingVersion] = .integer(Int64(Model.hashEncodingVersion))
        metadata[Key.storeFormatVersion] = .integer(Int64(StoreMetadata.storeFormatVersion))
        try metadata.stamp(db, schema: schema)
        return metadata
    }

    /// Closes the store's connection; a writable store's log is folded back into its file.
    public func close() throws {
        try queue.close()
    }

    func table(_ entity: String) throws -> EntityTable {
        guard let table = schema.table(for: entity) else {
            throw StoreError(
                .refused, path: path,
                "the \(schema.configuration) store \(storeDescription.displayName) does not hold entity \(entity); it holds \(entityNames.sorted().joined(separator: ", "))"
            )
        }
        return table
    }

    /// Called inside the save transaction once the changes are written; atomic stores write their file here.
    func willCommit(_ db: Database) throws {}

    /// Called after the save transaction committed.
    func didCommit() throws {}

    /// Called when the save transaction rolled back.
    func didRollBack() {}
}
