import Foundation
import SeedModel

/// Applies a nightly delta to a copy of an installed store: the device's side of ``DeltaPlan``.
///
/// ```swift
/// let delta = try DeltaReader.read(downloadedPath)
/// let metadata = try DeltaApplier.apply(delta, to: installedStore, output: nextStore)
/// ```
/// The copy is checked before it is written under `output`: the delta's tables and base release
/// against the store's (before any statement), every statement in one transaction with foreign keys
/// deferred (a row may point at one inserted later), `quick_check`, and the result's content digest —
/// recomputed from its rows (in Core Data's layout through the model the store carries) — against
/// the delta's. Any failure leaves nothing under `output`, and `base` untouched.
package enum DeltaApplier {
    /// - Returns: the result's metadata (its data version and digest are the delta's `to`).
    /// - Throws: ``DeltaError`` (another schema or base, a conflict, a wrong result), ``StoreError``
    ///   (files, SQLite).
    package static func apply(_ delta: Delta, to base: String, output: String, outputMode: mode_t = 0o444) throws -> StoreMetadata {
        if FileManager.default.fileExists(atPath: base) { try StoreFile.foldWriteAheadLog(base) }
        return try AtomicFile.changeCopy(of: base, to: output, mode: outputMode) { temporary in
            try apply(delta, inPlace: temporary, base: base)
        }
    }

    /// Applies `delta` to a store file this process owns, in place, and checks the result; `base`
    /// names the store in messages.
    static func apply(_ delta: Delta, inPlace path: String, base: String) throws -> StoreMetadata {
        try applyStatements(delta, inPlace: path, base: base)
        return try checkResult(of: delta, at: path, base: base)
    }

    /// The page cache while a delta is applied, in KiB. A night's delta dirties about four pages per
    /// changed row (one per b-tree), mostly far apart: a page written out early (a cache spill) is
    /// seldom changed again, so 8 MiB writes about as few pages as a cache holding them all
    /// (1.7k changed rows of 1M: 5,083 page writes with 16 MiB, 5,222 with 8), and a fetch stays
    /// well under 64 MiB.
    static let applyCacheKiB = 8 * 1024

    /// Runs the delta's plan on a store file this process owns, in one transaction: refused before
    /// any statement when the store is of another schema or release. The file keeps no rollback
    /// journal: after any error it is half-changed, and the caller throws it away (both callers
    /// apply to a copy made for this).
    /// - Parameter shouldStop: asked before each statement and within one (``StoreConnection/stop(when:)``);
    ///   once it says so, the statement is interrupted and SQLite's interrupt error thrown.
    static func applyStatements(_ delta: Delta, inPlace path: String, base: String, stopWhen shouldStop: (@Sendable () -> Bool)? = nil)
        throws
    {
        let store = try StoreConnection(path: path, mode: .writable)
        // The store is a copy this process owns, synced whole before it is renamed into place and
        // thrown away on any failure (a rollback included): it needs no rollback journal, and a page
        // cache that holds what one night dirties writes each changed page once, at the commit.
        try store.execute("PRAGMA journal_mode = OFF")
        try store.execute("PRAGMA synchronous = OFF")
        try store.execute("PRAGMA cache_size = -\(applyCacheKiB)")
        if let shouldStop { store.stop(when: shouldStop) }
        let before = try StoreMetadata.read(from: store)
        let target = DeltaTarget(
            tables: try tables(of: store),
            release: DeltaRelease(dataVersion: before.dataVersion ?? 0, contentDigest: before.contentDigest ?? ""))
        let statements: [DeltaStatement]
        do {
            statements = try DeltaPlan.statements(for: delta, target: target)
        } catch {
            throw DeltaError(error.kind, "\(base): \(error.message)")
        }
        try store.inTransaction { () throws(StoreError) in
            try store.execute("PRAGMA defer_foreign_keys = ON")
            for statement in statements {
                try store.execute(statement.sql, statement.values)
            }
        }
    }

    /// The store a delta gave must be its `to` release: its data version and stated content digest,
    /// `quick_check`, and the content digest recomputed from its rows (those two at once).
    /// - Parameter shouldStop: stops both reads as ``applyStatements(_:inPlace:base:stopWhen:)`` does.
    static func checkResult(of delta: Delta, at path: String, base: String, stopWhen shouldStop: (@Sendable () -> Bool)? = nil) throws
        -> StoreMetadata
    {
        // quick_check reads every page on one core while the digest reads every row on the other.
        let checking = BackgroundWork { () throws -> [String] in
            let store = try StoreConnection(path: path, mode: .immutable)
            if let shouldStop { store.stop(when: shouldStop) }
            return try store.strings("PRAGMA quick_check")
        }
        defer { _ = try? checking.value() }
        let store = try StoreConnection(path: path, mode: .immutable)
        if let shouldStop { store.stop(when: shouldStop) }
        let after = try StoreMetadata.read(from: store)
        guard after.contentDigest == delta.header.to.contentDigest, after.dataVersion == delta.header.to.dataVersion else {
            throw DeltaError(
                .inconsistent,
                "\(base): the delta's result states data version \(after.dataVersion ?? 0), not \(delta.header.to.dataVersion); fetch the full artifact"
            )
        }
        let recomputed = try recomputedDigest(store, metadata: after)
        let problems = try checking.value()
        guard problems == ["ok"] else {
            throw DeltaError(
                .inconsistent,
                "\(base): quick_check after the delta: \(problems.prefix(3).joined(separator: "; ")); fetch the full artifact")
        }
        guard let digest = recomputed else {
            throw DeltaError(
                .inconsistent,
                "\(base): the store the delta gave carries no model to recompute its content digest from, so its rows cannot be checked; fetch the full artifact"
            )
        }
        if digest != delta.header.to.contentDigest {
            throw DeltaError(
                .inconsistent,
                "\(base): the rows after the delta have content digest \(digest.prefix(12))…, the release states \(delta.header.to.contentDigest.prefix(12))…; fetch the full artifact"
            )
        }
        return after
    }

    /// The store a delta gave states its `to` release (data version and content digest), read from
    /// its metadata alone: what the set digest does not tell (``SeedInstaller``'s proportional check
    /// covers the rows).
    static func checkRelease(of delta: Delta, at path: String, base: String) throws {
        let after = try StoreMetadata.read(from: StoreConnection(path: path, mode: .immutable))
        guard after.contentDigest == delta.header.to.contentDigest, after.dataVersion == delta.header.to.dataVersion else {
            throw DeltaError(
                .inconsistent,
                "\(base): the delta's result states data version \(after.dataVersion ?? 0), not \(delta.header.to.dataVersion); fetch the full artifact"
            )
        }
    }

    /// The store's tables as a delta names them (``DeltaTable``): every table but `sqlite_%`, by name,
    /// with its columns in table order and its primary key in key order.
    static func tables(of store: StoreConnection) throws(StoreError) -> [DeltaTable] {
        var tables: [DeltaTable] = []
        for name in try store.strings(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        {
            var columns: [String] = []
            var keys: [(position: Int64, column: Int)] = []
            try store.forEachRow("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(name)]) { row in
                if case .text(let column) = row.value(0) { columns.append(column) }
                if case .integer(let position) = row.value(1), position > 0 { keys.append((position, columns.count - 1)) }
            }
            tables.append(DeltaTable(name: name, columns: columns, keyColumns: keys.sorted { $0.position < $1.position }.map(\.column)))
        }
        return tables
    }

    /// The content digest of the rows of the store at `path`, recomputed (nil for a Core Data store
    /// that carries no model).
    package static func recomputedContentDigest(of path: String) throws -> String? {
        let store = try StoreConnection(path: path, mode: .immutable)
        return try recomputedDigest(store, metadata: try StoreMetadata.read(from: store))
    }

    /// The content digest of the store's rows, recomputed: in Core Data's layout from the model the
    /// store carries; in the plain layout from its tables (``plainContentDumps(_:)``).
    private static func recomputedDigest(_ store: StoreConnection, metadata: StoreMetadata) throws -> String? {
        guard try StoreFile.layout(of: store) == .coreData else {
            return try ContentDigest.compute(store, tables: plainContentDumps(try tables(of: store)))
        }
        guard case .blob(let plist)? = try store.rows("SELECT Z_PLIST FROM Z_METADATA LIMIT 1").first?.first,
            let list = try? PropertyListSerialization.propertyList(from: Data(plist), format: nil) as? [String: Any],
            let json = list[StoreMetadata.CoreDataKey.model] as? String
        else { return nil }
        let model = try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: store.path, version: "embedded"))
        let configuration = metadata.configuration ?? SeedModel.Configuration.defaultName
        let schema = try CoreDataSchema(
            model: model, configuration: configuration,
            conventions: CoreDataConventions(
                entityNumbers: try StoreFile.entityNumbers(in: store), joinTableNames: try CoreDataConventions.joinTableNames(in: store)))
        return try ContentDigest.compute(store, tables: schema.contentDumps)
    }
}

extension DeltaApplier {
    /// The plain layout's tables the content digest covers, each dumped as the runtime's schema
    /// dumps it: every table but the metadata ones (`seed_metadata`, `seed_model`,
    /// `seed_object_version`), its columns in table order, rows by primary key (an entity's key
    /// column; a join table's source, destination).
    static func plainContentDumps(_ tables: [DeltaTable]) -> [(name: String, select: String)] {
        let metadata: Set<String> = [StoreMetadata.tableName, StoreMetadata.modelTableName, "seed_object_version"]
        return tables.filter { !metadata.contains($0.name) && $0.isKeyed }.map { table in
            let columns = table.columns.map(quoteIdentifier).joined(separator: ", ")
            let keys = table.keyColumns.map { quoteIdentifier(table.columns[$0]) }.joined(separator: ", ")
            return (table.name, "SELECT \(columns) FROM \(quoteIdentifier(table.name)) ORDER BY \(keys)")
        }
    }
}
