import Foundation
import GRDB
import SeedModel
import SeedStore

/// The build stage: CSV sources → a compact, read-only SQLite seed store stamped with its metadata.
///
/// ```swift
/// let built = try SeedBuilder().build(request) { progress in … }
/// ```
/// The store is built under a temporary name in the output folder, synced and renamed into place
/// read-only; a failure leaves nothing under the final name. Loading appends in key order and builds
/// indexes afterwards, so the file has no free pages to compact unless duplicate rows were removed,
/// and then it is `VACUUM`ed.
public struct SeedBuilder: Sendable {
    /// Name and version stamped into every store and manifest.
    public static let generator = "seedbuild 0.1.0"

    public init() {}

    public func build(_ request: BuildRequest, progress: (@Sendable (BuildProgress) -> Void)? = nil) throws -> BuiltStore {
        try build(request, progress: progress, whileSyncing: nil)
    }

    /// Builds the store and, while the finished file is written to the disk, runs `whileSyncing` with
    /// the path it has until it is renamed into place (the compression reads it from the page cache
    /// meanwhile: `Packager.compress(store:reading:progress:)`). `whileSyncing` runs on this thread
    /// and must not change the file; the store is renamed into place once both are done.
    public func build(
        _ request: BuildRequest, progress: (@Sendable (BuildProgress) -> Void)? = nil, whileSyncing: ((String) -> Void)?
    ) throws -> BuiltStore {
        let schema = try StoreSchema(model: try request.stampModel(), configuration: request.configuration, layout: request.layout)
        var request = request
        let opening = DispatchTime.now().uptimeNanoseconds
        request.baseRelease = try request.base.map { try BaseRelease.open($0, for: request, schema: schema) }
        let openedBase = Double(DispatchTime.now().uptimeNanoseconds - opening) / 1e9
        defer { request.baseRelease?.close() }
        // Refuses a derivation that cannot be computed before any row is read.
        let derived = try schema.derivedUpdates(now: request.buildTime)
        try OutputLock.createFolder(request.outputDirectory)
        let working = AtomicFile.temporaryPath(for: request.storePath)
        let rejectsTemporary = AtomicFile.temporaryPath(for: request.rejectsPath)
        defer {
            for path in [working, rejectsTemporary] { try? FileManager.default.removeItem(atPath: path) }
        }
        var rejects = RejectCollector(path: rejectsTemporary)
        var loads: Loads
        do {
            let started = DispatchTime.now().uptimeNanoseconds
            do {
                // A failed key index loads every file again, so only when each one can be read twice.
                loads = try load(
                    request, schema: schema, into: working, rejects: rejects,
                    indexKeysAfterLoad: Self.sourcesCanBeReadAgain(request), progress: progress)
            } catch let retry as KeyIndexFailed {
                // Rare (a duplicate key out of order): the file is thrown away and loaded again, each
                // key's uniqueness checked as it goes in, so the duplicates are rejected by line.
                let discarded = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                for path in [working, rejectsTemporary] { try? FileManager.default.removeItem(atPath: path) }
                rejects = RejectCollector(path: rejectsTemporary)
                loads = try load(request, schema: schema, into: working, rejects: rejects, indexKeysAfterLoad: false, progress: progress)
                loads.timings.prepend("load thrown away (\(retry.key) duplicates)", seconds: discarded)
                loads.warnings.append(
                    "\(retry.file): \(retry.key) has duplicate values out of key order (see the rejects), so the file was read a second time to name their lines"
                )
            }
        } catch {
            throw BuildFault.translate(error, writing: request.storePath)
        }
        // Fetched from its channel, inflated or read where it is, and checked.
        if request.baseRelease != nil { loads.timings.prepend("base release", seconds: openedBase) }

        if rejects.count > request.maxRejects {
            let kept = try rejects.finish().map { try publishRejects($0, to: request.rejectsPath) } ?? request.rejectsPath
            throw IngestError(
                .tooManyRejects, file: kept,
                "\(rejects.count) rows rejected, more than --max-rejects \(request.maxRejects); this file lists them all. Fix the rows or raise --max-rejects",
                rejectedRows: rejects.shown)
        }
        let metadata: StoreMetadata
        do {
            metadata = try finish(working, schema: schema, request: request, derived: derived, loads: &loads)
        } catch {
            throw BuildFault.translate(error, writing: request.storePath)
        }
        // Before anything in the output folder is replaced: a release past the change budget is
        // held there, the previous release left whole.
        let (deltas, changes) = try followBase(request, store: working, schema: schema, timings: &loads.timings)
        let setDigest: String
        do {
            setDigest = try loads.timings.measure("set digest") {
                try SetDigestStage.digest(of: working, base: request.baseRelease, deltas: deltas)
            }
        } catch {
            throw BuildFault.translate(error, writing: request.storePath)
        }
        // The folder holds one matching set: the old manifest goes first, then its artifact, so from
        // here on an interruption never leaves a manifest beside a store it does not describe.
        let staleDeltas = PendingDeltas.deltaFiles(in: request.outputDirectory, dataset: request.dataset)
        for stale in [request.outputFile(Manifest.fileName), request.storePath + ".gz"] + staleDeltas { unlink(stale) }
        var syncing: BackgroundWork<Void, any Error>?
        if let whileSyncing {
            syncing = BackgroundWork { [working] () throws -> Void in close(try AtomicFile.openSynced(working)) }
            whileSyncing(working)
        }
        // With work beside it, the phase is what is left of the sync once that work is done.
        try loads.timings.measure("sync and rename") {
            try syncing?.value()
            try AtomicFile.commit(working, to: request.storePath, mode: 0o444)
        }
        var rejectsPath: String?
        if let written = try rejects.finish() {
            rejectsPath = try publishRejects(written, to: request.rejectsPath)
        } else {
            // A rejects file left by an earlier build would describe rows this build accepted.
            try? FileManager.default.removeItem(atPath: request.rejectsPath)
        }
        return BuiltStore(
            storePath: request.storePath, rejectsPath: rejectsPath, rowCounts: loads.rowCounts,
            sources: loads.sources.map { source in
                var source = source
                source.file = displayName(source.file)
                return source
            },
            rejected: rejects.count, shownRejects: rejects.shown, warnings: loads.warnings, metadata: metadata,
            timings: loads.timings, deltas: deltas, changes: changes, setDigest: setDigest,
            uncertainJoinTables: Self.uncertainJoinTables(schema.coreData))
    }

    struct Loads {
        var rowCounts: [String: Int] = [:]
        var sources: [BuiltStore.Source] = []
        var warnings: [String] = []
        var timings = PhaseTimings()
        /// Tables hashed while they loaded.
        var tableDigests: [String: Data] = [:]
    }

    /// Thrown when building a key's unique index after the load finds a duplicate: the working file
    /// is left inconsistent (`journal_mode = OFF` cannot undo the failed statement) and must be loaded again.
    struct KeyIndexFailed: Error {
        let file: String
        let key: String
    }

    /// - Parameter indexKeysAfterLoad: in Core Data's layout, load keys out of order unchecked and
    ///   prove them unique by building their index at the end (``EntityLoader/indexesKeyAfterLoad``);
    ///   only for regular files, which can be read again if that fails.
    private func load(
        _ request: BuildRequest, schema: StoreSchema, into path: String, rejects: RejectCollector, indexKeysAfterLoad: Bool,
        progress: (@Sendable (BuildProgress) -> Void)?
    ) throws -> Loads {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        // Core Data's layout converts UUIDs and marked bytes in the INSERT through these.
        configuration.prepareDatabase { db in CoreDataValues.registerFunctions(in: db) }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw IngestError(.cannotCreateOutput, file: path, "cannot create the store: \(error)")
        }
        defer { try? queue.close() }
        var loads = Loads()
        if let progress { loads.timings.onStart = { progress(BuildProgress(startingPhase: $0)) } }
        try queue.inDatabase { db in
            // The working file is thrown away on failure, so durability during the load buys nothing.
            // A small cache measured fastest for building indexes (4 MiB: 0.67 s for 1M rows, 32 MiB: 1.4 s)
            // and bounds memory whatever the input size; with it, sorting on every core halved the index
            // build again (1.20 → 0.63 s). 8 KiB pages loaded and indexed 2.7M rows faster than 4 or 16 KiB.
            // Before anything writes: setting auto-vacuum writes the header, and with a rollback journal
            // its `-journal` would come and go beside the working store, where an interrupted run's
            // cleanup (``Interruption``) races SQLite for it.
            try db.execute(sql: "PRAGMA journal_mode = OFF")
            // Core Data's files use incremental auto-vacuum, chosen before any table exists.
            if schema.layout == .coreData { try db.execute(sql: "PRAGMA auto_vacuum = 2") }
            if let base = request.baseRelease {
                try db.execute(
                    sql: "ATTACH DATABASE ? AS base",
                    arguments: [StoreDatabase.immutableURI(URL(fileURLWithPath: base.path).standardizedFileURL.path)])
            }
            try db.execute(
                sql:
                    "PRAGMA page_size = 8192; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -4096; PRAGMA temp_store = FILE; PRAGMA threads = \(ProcessInfo.processInfo.activeProcessorCount)"
            )
            try db.inTransaction {
                for statement in schema.createTableStatements { try db.execute(sql: statement) }
                var references: [String: ReferenceKeys] = [:]
                // Indexes a load built already (Core Data's unique index on a key that left its order).
                var builtIndexes: Set<String> = []
                // Each file's header, to tell a --ignore-column that matched no file.
                var headers: [String: [String]] = [:]
                let referenced = Set(schema.tables.flatMap { $0.foreignKeys.map(\.destination) })
                // Tables whose loader numbered their rows after the base (``BaseNumbers``).
                var numberedTables: Set<String> = []
                for table in schema.tables {
                    // An inheritance tree's table takes a file for each of its entities.
                    for entity in table.members {
                        guard let file = request.sources[entity] else {
                            loads.rowCounts[entity] = 0
                            continue
                        }
                        let (source, tableDigest, numbered) = try loadTable(
                            table, entity: entity, from: file, request: request, references: references, db: db, rejects: rejects,
                            indexKeyAfterLoad: indexKeysAfterLoad, timings: &loads.timings, notes: &loads.warnings,
                            headers: &headers, builtIndexes: &builtIndexes, progress: progress)
                        loads.sources.append(source)
                        // Several files into one table: its digest is read back once all are in.
                        loads.tableDigests[table.name] = table.isTree ? nil : tableDigest
                        loads.rowCounts[entity] = source.rowsLoaded
                        if numbered { numberedTables.insert(table.name) }
                    }
                    if let base = request.baseRelease, !numberedTables.contains(table.name),
                        try loads.timings.measure(
                            "keys after the base \(table.entity.name)", { try StableKeys.renumber(table, base: base, db: db) })
                    {
                        // The table was rewritten: what was hashed and indexed while it loaded is gone.
                        loads.tableDigests[table.name] = nil
                        builtIndexes = builtIndexes.filter {
                            !$0.contains(" ON \(table.name) (") && !$0.contains(" ON \(quoteIdentifier(table.name)) (")
                        }
                    }
                    if referenced.contains(table.entity.name) {
                        for key in Self.lookupKeys(of: table.entity) {
                            references[Self.lookupName(table.entity.name, key: key)] = try Self.primaryKeys(of: table, key: key, db: db)
                        }
                    }
                }
                try loadLinks(request, schema: schema, db: db, lookups: &references, rejects: rejects, loads: &loads)
                for name in request.mapping.unmatchedIgnoredColumns(headers: headers) {
                    loads.warnings.append(
                        "--ignore-column \(name) matched no column of \(headers.keys.sorted().joined(separator: ", ")); check the name (columns are compared ignoring case, '_', '-' and spaces)"
                    )
                }
                if schema.layout == .coreData { try Self.fillCoreDataColumns(schema, db: db) }
                try loads.timings.measure("indexes") {
                    for statement in schema.indexStatements where !builtIndexes.contains(statement) { try db.execute(sql: statement) }
                }
                return .commit
            }
        }
        return loads
    }

    private func loadTable(
        _ table: EntityTable, entity: String, from file: String, request: BuildRequest, references: [String: ReferenceKeys],
        db: Database, rejects: RejectCollector, indexKeyAfterLoad: Bool, timings: inout PhaseTimings, notes: inout [String],
        headers: inout [String: [String]], builtIndexes: inout Set<String>, progress: (@Sendable (BuildProgress) -> Void)?
    ) throws -> (BuiltStore.Source, tableDigest: Data?, numbered: Bool) {
        let phase = "load \(entity)"
        let rejectedBefore = rejects.count
        var (reader, loader, result) = try timings.measure(phase) {
            try loadRows(
                table, entity: entity, from: file, request: request, references: references, db: db, rejects: rejects,
                indexKeyAfterLoad: indexKeyAfterLoad, notes: &notes, headers: &headers, progress: progress)
        }
        if loader.keyIndexPending, let index = loader.keyIndex {
            // The index sorted input gets in the indexes phase, built now to prove the keys unique:
            // a duplicate fails it.
            try timings.measure("key index \(entity)") {
                do {
                    try db.execute(sql: index.statement)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw KeyIndexFailed(file: file, key: "\(entity).\(loader.trackedKey ?? "")")
                }
            }
            result.keyIndex = index.statement
        }
        let removed = try timings.measure(adding: phase) {
            let check = UniquenessCheck(
                table: table, mapping: loader.mapping, file: file, header: reader.header, maxRecordBytes: request.maxRecordBytes)
            let proven = loader.trackedKeyIsUnique || result.keyIndex != nil ? loader.trackedKey.map { [$0] } : nil
            return try check.run(
                db, stagingTable: result.staged ? loader.stagingTable : nil, rejects: rejects, proven: proven,
                duplicateKeyLines: result.duplicateKeyLines, key: loader.trackedKey)
        }
        if let index = result.keyIndex { builtIndexes.insert(index) }
        result.rowsLoaded -= removed
        let source = BuiltStore.Source(
            // Size and checksum of the file's bytes, hashed as they were first read.
            entity: entity, file: file, bytes: loader.sourceRead.bytes, sha256: loader.sourceRead.sha256 ?? "", rowsRead: result.rowsRead,
            rowsLoaded: result.rowsLoaded, rowsRejected: rejects.count - rejectedBefore)
        // Removing duplicates after the fact invalidates the digest hashed during the load.
        return (source, removed == 0 ? result.tableDigest : nil, loader.numbering != nil)
    }

    /// Reads one file into its table: ``EntityLoader/load(_:into:progress:)`` and what it needs.
    private func loadRows(
        _ table: EntityTable, entity: String, from file: String, request: BuildRequest, references: [String: ReferenceKeys],
        db: Database, rejects: RejectCollector, indexKeyAfterLoad: Bool, notes: inout [String], headers: inout [String: [String]],
        progress: (@Sendable (BuildProgress) -> Void)?
    ) throws -> (CSVReader, EntityLoader, EntityLoader.Result) {
        let reader: CSVReader
        do {
            reader = try CSVReader(path: file, maxRecordBytes: request.maxRecordBytes)
        } catch {
            throw IngestError(error)
        }
        var keys: [String: [[Attribute]]] = [:]
        for key in table.foreignKeys {
            if let destination = request.model.entity(named: key.destination) { keys[key.destination] = Self.lookupKeys(of: destination) }
        }
        let resolved = table.isTree ? request.model.entity(named: entity).map(request.model.resolved) : nil
        try request.mapping.checkColumns(of: entity, header: reader.header, file: file)
        headers[file] = reader.header
        let mapping = try ColumnMapping(
            header: reader.header, table: table, file: file, renames: request.mapping.renames[entity] ?? [:], keys: keys,
            ignored: request.mapping.ignoredColumns(of: entity), entity: resolved)
        if !mapping.ignoredColumns.isEmpty {
            notes.append(
                "\(file): skipped \(mapping.ignoredColumns.map { "\"\($0)\"" }.joined(separator: ", ")) as told (--ignore-column or null in the mapping file)"
            )
        }
        let loader = EntityLoader(
            table: table, mapping: mapping, file: file, header: reader.header, references: references,
            sourceFiles: request.sources, rejects: rejects, indexesKeyAfterLoad: indexKeyAfterLoad,
            numbering: try Self.numbering(table, mapping: mapping, request: request, db: db))
        let total = reader.fileSize
        let result = try loader.load(reader, into: db) { rows, bytes in
            progress?(BuildProgress(entity: entity, file: file, rowsRead: rows, bytesRead: bytes, totalBytes: total))
        }
        return (reader, loader, result)
    }

    /// Where the loader numbers `table`'s rows after the base release itself (``BaseNumbers``): a
    /// Core Data table of one entity keyed by a single attribute the base holds as the file gives it,
    /// and which the file feeds. Nil for any other table, which ``StableKeys`` renumbers after its load.
    static func numbering(_ table: EntityTable, mapping: ColumnMapping, request: BuildRequest, db: Database) throws -> (
        base: String, highWater: Int64
    )? {
        guard let base = request.baseRelease, table.primaryKey == .rowid, table.layout == .coreData, !table.isTree,
            let key = table.entity.singleAttributeKey, table.entity.uniquenessConstraints.first == [key.name],
            mapping.feeds.contains(where: { if case .attribute(_, let attribute) = $0 { attribute.name == key.name } else { false } }),
            ![.uuid, .decimal, .binary, .transformable].contains(key.type),
            try db.tableExists(table.name, in: "base")
        else { return nil }
        return (base.path, base.highWater[table.entity.name] ?? 0)
    }

    /// Whether every source can be read a second time: a key index that finds a duplicate
    /// (``KeyIndexFailed``) makes the build load all of them again.
    static func sourcesCanBeReadAgain(_ request: BuildRequest) -> Bool {
        request.sources.values.allSatisfy(CSVReader.canBeReadAgain) && request.links.values.allSatisfy(CSVReader.canBeReadAgain)
    }

    /// Loads every link file once the entities' files are in (``LinkLoader``).
    private func loadLinks(
        _ request: BuildRequest, schema: StoreSchema, db: Database, lookups: inout [String: ReferenceKeys], rejects: RejectCollector,
        loads: inout Loads
    ) throws {
        guard !request.links.isEmpty else { return }
        let targets = SourceResolver.linkTargets(
            in: request.model, entities: request.model.configuration(named: request.configuration)?.entities ?? [])
        for (name, file) in request.links.sorted(by: { $0.key < $1.key }) {
            guard let target = targets.first(where: { $0.name == name }) else {
                throw IngestError(
                    .badData, file: file, "\(name) is not a relationship a link file feeds in configuration \(request.configuration)")
            }
            let loader = LinkLoader(target: target, file: file, schema: schema, request: request, rejects: rejects)
            loads.sources.append(try loads.timings.measure("load \(name)") { try loader.load(into: db, lookups: &lookups) })
        }
    }

    /// The uniqueness constraints a reference to `entity` can be resolved through, single-attribute ones first.
    static func lookupKeys(of entity: Entity) -> [[Attribute]] {
        let keys = entity.uniquenessConstraints.compactMap { constraint -> [Attribute]? in
            let attributes = constraint.compactMap { entity.attribute(named: $0) }.filter { !$0.isTransient }
            return attributes.count == constraint.count && !attributes.isEmpty ? attributes : nil
        }
        return keys.filter { $0.count == 1 } + keys.filter { $0.count > 1 }
    }

    /// The name of a destination's lookup table for one key: `County` `code`, `County` `name` `state`.
    static func lookupName(_ destination: String, key: [Attribute]) -> String {
        ([destination] + key.map(\.name)).joined(separator: "\u{1F}")
    }

    /// Key value (parts joined by U+001F, each as ``KeyPart`` makes it of the stored value) →
    /// primary key of a loaded table, for filling references to it and links.
    static func primaryKeys(of table: EntityTable, key: [Attribute], db: Database) throws -> ReferenceKeys {
        let columns = key.map { quoteIdentifier(table.columnName(for: $0.name)) }
        let present = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
        let statement = try db.makeStatement(
            sql:
                "SELECT \(quoteIdentifier(table.keyColumn)), \(columns.joined(separator: ", ")) FROM \(quoteIdentifier(table.name)) WHERE \(present)"
        )
        let parts = key.map { KeyPart($0, in: table) }
        var keys = ReferenceKeys(parts: parts)
        let rows = try Row.fetchCursor(statement)
        // The key's bytes made of the values SQLite holds, read from the statement without a String.
        var bytes: [UInt8] = []
        let row = StoreConnection.Row(borrowing: statement.sqliteStatement)
        while try rows.next() != nil {
            bytes.removeAll(keepingCapacity: true)
            parts.appendStored(row, from: 1, to: &bytes)
            bytes.withUnsafeBytes { keys.insert($0, primaryKey: row.integer(0)) }
        }
        return keys
    }

    private func publishRejects(_ temporary: String, to path: String) throws -> String {
        try AtomicFile.commit(temporary, to: path, mode: 0o644)
        return path
    }

    private func displayName(_ path: String) -> String {
        URL(fileURLWithPath: path).lastPathComponent
    }
}
