import Foundation
import GRDB
import SeedInstall
import SeedStore

/// The per-entity changes between two stores of one channel, counted without writing a delta: the
/// later store is opened read-only with the earlier attached, and each entity's table of both is
/// read once, side by side in key order (``MergedTables``), as the delta stage reads them.
///
/// ```swift
/// let report = try StoreComparison().compare(base: "7.sqlite", new: "8.sqlite")
/// print(report.text)
/// ```
public struct StoreComparison: Sendable {
    /// Changed rows kept per entity, with their old and new values (`seedbuild diff --rows N`).
    public var rowLimit = 0

    public init(rowLimit: Int = 0) {
        self.rowLimit = rowLimit
    }

    /// - Parameters:
    ///   - from, to: how the report names the two releases (default: the paths).
    /// - Throws: ``DeltaError`` (`schemaMismatch`) when the stores' tables, columns or keys differ
    ///   (two model versions, or two layouts); `StoreError` when either is not a seed store.
    public func compare(base: String, new: String, from: String? = nil, to: String? = nil) throws -> ChangeReport {
        try compare(base: base, new: new, schema: nil, from: from, to: to)
    }

    /// ``compare(base:new:from:to:)`` with the later store's schema, when known (a build's), else its embedded one.
    func compare(base: String, new: String, schema known: StoreSchema?, from: String? = nil, to: String? = nil) throws -> ChangeReport {
        let queue = try StoreDatabase.openReadOnly(new)
        defer { try? queue.close() }
        return try queue.inDatabase { db in
            let schema = try known ?? StoreDatabase.embeddedSchema(db, path: new)
            try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [StoreDatabase.immutableURI(base)])
            defer { try? db.execute(sql: "DETACH DATABASE base") }
            let tables = try StoreDiff.tables(db, schema: "main")
            let baseTables = try StoreDiff.tables(db, schema: "base")
            if let problem = DeltaPlan.difference(baseTables, tables, expected: from ?? base, actual: to ?? new) {
                throw DeltaError(
                    .schemaMismatch,
                    "\(from ?? base) and \(to ?? new) cannot be compared row by row: \(problem); compare two releases of the same layout and seed model version"
                )
            }
            let labels = ChangeLabels.of(schema, tables: tables)
            var tallies: [ChangeTally] = []
            for (index, table) in tables.enumerated() {
                guard let label = labels[table.name] else { continue }
                var tally: ChangeTally? = ChangeTally(labels: label, rowLimit: rowLimit)
                try MergedTables(table: table, index: index, db: db).run(tally: &tally) { _ in }
                if let tally { tallies.append(tally) }
            }
            let versions = (
                try? StoreMetadata.read(at: URL(fileURLWithPath: base)).dataVersion,
                try? StoreMetadata.read(at: URL(fileURLWithPath: new)).dataVersion
            )
            return try Self.report(
                tallies, schema: schema, db: db, from: (from ?? base, versions.0 ?? nil), to: (to ?? new, versions.1 ?? nil))
        }
    }

    /// The report of `tallies`, with every entity's rows counted in both stores (`main`, the later,
    /// and `base`, attached).
    static func report(
        _ tallies: [ChangeTally], schema: StoreSchema, db: Database, from: (String, Int64?), to: (String, Int64?)
    ) throws -> ChangeReport {
        let (baseRows, rows) = (try entityRows(schema, db: db, in: "base"), try entityRows(schema, db: db, in: "main"))
        var entities: [String: EntityChanges] = [:]
        for table in schema.tables {
            for member in table.members.isEmpty ? [table.entity.name] : table.members {
                let (before, after) = (baseRows[member] ?? 0, rows[member] ?? 0)
                if before == 0, after == 0, schema.model.entity(named: member)?.isAbstract ?? false { continue }
                entities[member] = EntityChanges(entity: member, baseRows: before, rows: after)
            }
        }
        for tally in tallies { tally.fill(&entities) }
        return ChangeReport(from: from.0, to: to.0, fromDataVersion: from.1, toDataVersion: to.1, entities: Array(entities.values))
    }

    /// Entity → its rows in one of the attached stores; an inheritance tree's rows counted by entity.
    private static func entityRows(_ schema: StoreSchema, db: Database, in store: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in schema.tables where try db.tableExists(table.name, in: store) {
            let name = "\(store).\(quoteIdentifier(table.name))"
            guard table.isTree, let column = table.entityColumn else {
                counts[table.entity.name] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name)") ?? 0
                continue
            }
            for row in try Row.fetchAll(db, sql: "SELECT \(quoteIdentifier(column.name)), count(*) FROM \(name) GROUP BY 1") {
                let stored: DatabaseValue = row[0]
                let value: StoreValue
                switch stored.storage {
                case .string(let text): value = .text(text)
                case .int64(let number): value = .integer(number)
                default: continue
                }
                if let entity = table.entityName(from: value) { counts[entity, default: 0] += row[1] as Int }
            }
        }
        return counts
    }
}
