import Foundation
import GRDB
import SeedStore

/// What a diff wrote.
public struct DeltaSummary: Sendable, Hashable {
    package var header: DeltaHeader
    public var operations: Int
    /// The delta file's size.
    public var bytes: Int64
}

/// Writes the row delta between two releases of one channel (same layout, same seed model version).
///
/// The new store is opened read-only with the base attached (`mode=ro&immutable=1`); each table of
/// both is read once in key order, side by side (``TableDiff``, ``MergedTables``), and only changed
/// rows are kept, up to a bound, then written by the ``DeltaWriter``.
/// ```swift
/// let summary = try StoreDiff().write(base: "7.sqlite", new: "8.sqlite", to: "7-8.delta.gz")
/// ```
public struct StoreDiff: Sendable {
    public init() {}

    /// - Throws: ``DeltaError`` (`schemaMismatch`, naming both files) when the stores' tables,
    ///   columns or keys differ; `StoreError` when either is not a seed store.
    @discardableResult
    public func write(base: String, new: String, to output: String) throws -> DeltaSummary {
        try write(base: base, new: new, to: output, schema: nil).summary
    }

    /// ``write(base:new:to:)``, counting each entity's changes as the tables are read
    /// (``ChangeReport``) when given the new store's `schema`.
    func write(base: String, new: String, to output: String, schema: StoreSchema?) throws -> (summary: DeltaSummary, changes: ChangeReport?)
    {
        let header = DeltaHeader(from: try Self.release(base), to: try Self.release(new), tables: [])
        let queue = try StoreDatabase.openReadOnly(new)
        defer { try? queue.close() }
        return try queue.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [StoreDatabase.immutableURI(base)])
            defer { try? db.execute(sql: "DETACH DATABASE base") }
            let tables = try Self.tables(db, schema: "main")
            let baseTables = try Self.tables(db, schema: "base")
            if let problem = DeltaPlan.difference(baseTables, tables, expected: "the base", actual: "the new store") {
                throw DeltaError(
                    .schemaMismatch,
                    "\(base) and \(new) are not two releases of one channel: \(problem); a delta joins stores of the same layout and seed model version"
                )
            }
            let labels = schema.map { ChangeLabels.of($0, tables: tables) } ?? [:]
            let writer = try DeltaWriter(path: output, header: DeltaHeader(from: header.from, to: header.to, tables: tables))
            var operations = 0
            var tallies: [ChangeTally] = []
            for (index, table) in tables.enumerated() {
                var diff = TableDiff(table: table, index: index, db: db, writer: writer, newStorePath: new, basePath: base)
                diff.tally = labels[table.name].map { ChangeTally(labels: $0) }
                let (count, tally) = try diff.run()
                operations += count
                if let tally { tallies.append(tally) }
            }
            try writer.finish()
            let bytes = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.int64Value ?? 0
            let changes = try schema.map { schema in
                try StoreComparison.report(
                    tallies, schema: schema, db: db, from: (base, header.from.dataVersion), to: (new, header.to.dataVersion))
            }
            return (DeltaSummary(header: writer.header, operations: operations, bytes: bytes), changes)
        }
    }

    /// A store's data version and content digest, from its metadata.
    package static func release(_ path: String) throws -> DeltaRelease {
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: path))
        guard let version = metadata.dataVersion, let digest = metadata.contentDigest else {
            throw DeltaError(.schemaMismatch, "\(path): the store has no data version or content digest; rebuild it with seedbuild")
        }
        return DeltaRelease(dataVersion: version, contentDigest: digest)
    }

    /// The tables of a store as a delta names them: every table in `sqlite_master` but `sqlite_%`,
    /// by name, with the columns of `PRAGMA table_info` and its primary key (`pk` order).
    package static func tables(_ db: Database, schema: String = "main") throws -> [DeltaTable] {
        let names = try String.fetchAll(
            db,
            sql: "SELECT name FROM \(schema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        return try names.map { name in
            let columns = try Row.fetchAll(db, sql: "SELECT name, pk FROM pragma_table_info(?, ?) ORDER BY cid", arguments: [name, schema])
            let keys = columns.indices.filter { (columns[$0]["pk"] as Int) > 0 }.sorted {
                (columns[$0]["pk"] as Int) < (columns[$1]["pk"] as Int)
            }
            return DeltaTable(name: name, columns: columns.map { $0["name"] }, keyColumns: keys)
        }
    }

}
