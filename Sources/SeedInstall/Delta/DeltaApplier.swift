import Foundation
import SeedModel

/// Applies a nightly delta to a copy of an installed store: the device's side of ``DeltaPlan``.
///
/// ``applyStatements(_:inPlace:base:stopWhen:)`` refuses a delta whose tables or base release are
/// not the store's (before any statement), then runs every statement in one transaction with
/// foreign keys deferred (a row may point at one inserted later). ``checkResult(of:at:base:stopWhen:)``
/// then checks the copy: its stated release, `quick_check`, and its content digest recomputed from
/// its rows (in Core Data's layout through the model the store carries) against the delta's.
/// ``SeedInstaller`` applies to a clone of the installed store and renames it into place once checked.
package enum DeltaApplier {
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
    package static func applyStatements(
        _ delta: Delta, inPlace path: String, base: String, stopWhen shouldStop: (@Sendable () -> Bool)? = nil
    )
        throws
    {
        let store = try StoreConnection(path: path, mode: .writable, stopWhen: shouldStop)
        // The store is a copy this process owns, synced whole before it is renamed into place and
        // thrown away on any failure (a rollback included): it needs no rollback journal, and a page
        // cache that holds what one night dirties writes each changed page once, at the commit.
        try store.execute("PRAGMA journal_mode = OFF")
        try store.execute("PRAGMA synchronous = OFF")
        try store.execute("PRAGMA cache_size = -\(applyCacheKiB)")
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
    package static func checkResult(of delta: Delta, at path: String, base: String, stopWhen shouldStop: (@Sendable () -> Bool)? = nil)
        throws
        -> StoreMetadata
    {
        // quick_check reads every page on one core while the digest reads every row on the other.
        let checking = BackgroundWork { () throws -> [String] in
            try StoreConnection(path: path, mode: .immutable, stopWhen: shouldStop).strings("PRAGMA quick_check")
        }
        defer { _ = try? checking.value() }
        let store = try StoreConnection(path: path, mode: .immutable, stopWhen: shouldStop)
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
        try store.tables().map { table in
            let keys = table.keyPositions.indices.filter { table.keyPositions[$0] > 0 }.sorted {
                table.keyPositions[$0] < table.keyPositions[$1]
            }
            return DeltaTable(name: table.name, columns: table.columns, keyColumns: keys)
        }
    }

    /// The content digest of the store's rows, recomputed: in Core Data's layout from the model the
    /// store carries (nil when it carries none); in the plain layout from its tables (``plainContentDumps(_:)``).
    package static func recomputedDigest(_ store: StoreConnection, metadata: StoreMetadata) throws -> String? {
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
