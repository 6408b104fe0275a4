internal import GRDB
import SeedModel

/// Rebuilds every table of a store in its new shape from the old tables, in one transaction.
struct TableRebuild {
    let db: Database
    let old: StoreSchema
    let new: StoreSchema
    let plan: MigrationPlan
    let path: String
    private(set) var droppedLinks: [String: Int] = [:]

    init(db: Database, old: StoreSchema, new: StoreSchema, plan: MigrationPlan, path: String) {
        self.db = db
        self.old = old
        self.new = new
        self.plan = plan
        self.path = path
    }

    private func oldName(_ table: String) -> String { "seed_old_\(table)" }

    mutating func run() throws {
        // Old tables step aside under other names; their indexes would clash with the new ones.
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        for index in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            try db.execute(sql: "DROP INDEX \(quoteIdentifier(index))")
        }
        if try db.tableExists("sqlite_stat1") { try db.execute(sql: "DELETE FROM sqlite_stat1") }
        let oldTables = old.tables.map(\.name) + old.joinTables.map(\.name)
        for table in oldTables {
            try db.execute(sql: "ALTER TABLE \(quoteIdentifier(table)) RENAME TO \(quoteIdentifier(oldName(table)))")
        }
        for statement in new.createTableStatements { try db.execute(sql: statement) }
        for table in new.tables {
            try fill(table)
        }
        for join in new.joinTables {
            try fill(join)
        }
        for table in oldTables { try db.execute(sql: "DROP TABLE \(quoteIdentifier(oldName(table)))") }
        for statement in new.indexStatements { try createIndex(statement) }
        try db.execute(sql: "PRAGMA analysis_limit = 2000; ANALYZE")
    }

    /// Copies the rows of every entity the table holds from its source entity's rows.
    private mutating func fill(_ table: EntityTable) throws {
        let feeding = table.members.compactMap { member -> (member: String, source: String, oldTable: EntityTable)? in
            guard let source = plan.sourceEntities[member], let oldTable = old.table(for: source) else { return nil }
            return (member, source, oldTable)
        }
        // Keys are kept, so one table of the old store may feed a table of the new one, not two.
        let oldTables = Set(feeding.map(\.oldTable.name))
        if oldTables.count > 1 {
            throw StoreError(
                .refused, path: path,
                "the \(table.name) tree would take the rows of \(oldTables.sorted().joined(separator: " and ")), whose keys overlap; joining tables into one tree is not inferred: build the seed again with the new model"
            )
        }
        for (member, source, oldTable) in feeding {
            try fill(table, entity: member, from: oldTable, source: source)
        }
    }

    /// Copies one entity's rows across with an expression per new column.
    private mutating func fill(_ table: EntityTable, entity: String, from oldTable: EntityTable, source: String) throws {
        let properties = plan.sourceProperties[entity] ?? [:]
        var columns: [String] = []
        var expressions: [String] = []
        for column in table.columns {
            columns.append(quoteIdentifier(column.name))
            switch column.kind {
            case .primaryKey:
                expressions.append(oldTable.primaryKey == .rowid ? "old.\(quoteIdentifier(Model.primaryKeyColumn))" : "NULL")
            case .entity:
                expressions.append(sqlLiteral(entity))
            case .attribute(let attribute):
                let stored = properties[attribute.name].flatMap { oldTable.entity.attribute(named: $0) }.flatMap {
                    $0.isTransient ? nil : $0
                }
                let literal = column.defaultLiteral ?? "NULL"
                if let stored {
                    let value = "old.\(quoteIdentifier(stored.name))"
                    expressions.append(!attribute.isOptional && stored.isOptional ? "COALESCE(\(value), \(literal))" : value)
                } else {
                    expressions.append(literal)
                }
            case .toOne(let relationship):
                expressions.append(try toOneExpression(relationship, in: table, from: oldTable, sourceName: properties[relationship.name]))
            case .version, .toOneEntity, .toOneOrder, .toManyWithoutInverse:
                // Tables rebuilt here are in the plain layout; Migrator converts Core Data's around the rebuild.
                expressions.append("NULL")
            }
        }
        let rows = oldTable.isTree ? " WHERE old.\(quoteIdentifier(Model.entityColumn)) = \(sqlLiteral(source))" : ""
        try db.execute(
            sql: """
                INSERT INTO \(quoteIdentifier(table.name)) (\(columns.joined(separator: ", ")))
                SELECT \(expressions.joined(separator: ", ")) FROM \(quoteIdentifier(oldName(oldTable.name))) AS old\(rows)
                ORDER BY old.\(quoteIdentifier(oldTable.keyColumn))
                """)
    }

    /// The old column itself when the link was a column there too, else the first linked key from wherever the links were.
    private mutating func toOneExpression(
        _ relationship: Relationship, in table: EntityTable, from oldTable: EntityTable, sourceName: String?
    ) throws -> String {
        guard let sourceName, let oldRelationship = oldTable.entity.relationship(named: sourceName) else { return "NULL" }
        if oldTable.foreignKeys.contains(where: { $0.column == sourceName }) {
            return "old.\(quoteIdentifier(sourceName))"
        }
        guard let pairs = pairs(of: oldRelationship, in: oldTable.name) else { return "NULL" }
        let dropped = try Int.fetchOne(db, sql: "SELECT count(*) - count(DISTINCT src) FROM (\(pairs.sql))") ?? 0
        if dropped > 0 { droppedLinks["\(table.name).\(relationship.name)"] = dropped }
        let destination = translate(oldRelationship.destination, "p.dst")
        return
            "(SELECT \(destination) FROM (\(pairs.sql)) p WHERE p.src = old.\(quoteIdentifier(oldTable.keyColumn)) ORDER BY p.pos, p.dst LIMIT 1)"
    }

    /// Copies links into a join table from wherever the old store kept them.
    private func fill(_ join: JoinTable) throws {
        // The relationship may be declared by any entity of the owning table's tree.
        let owner =
            new.table(for: join.sourceEntity)?.members.first { plan.sourceProperties[$0]?[join.relationship] != nil } ?? join.sourceEntity
        guard let sourceEntity = plan.sourceEntities[owner],
            let sourceName = plan.sourceProperties[owner]?[join.relationship],
            let relationship = old.table(for: sourceEntity)?.entity.relationship(named: sourceName),
            let pairs = pairs(of: relationship, in: sourceEntity)
        else { return }
        var positions = join.positionColumn.map { [(quoteIdentifier($0), "p.pos")] } ?? []
        if let inverse = join.inversePositionColumn, inverse != join.positionColumn {
            positions.append((quoteIdentifier(inverse), "p.ipos"))
        }
        let source = translate(sourceEntity, "p.src")
        let destination = translate(relationship.destination, "p.dst")
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO \(quoteIdentifier(join.name)) ("source", "destination"\(positions.map { ", " + $0.0 }.joined()))
                SELECT \(source), \(destination)\(positions.map { ", " + $0.1 }.joined()) FROM (\(pairs.sql)) p ORDER BY p.src, p.pos, p.dst
                """)
    }

    /// The new primary key of the object an old key (`Z_PK`, or the key attribute of a `WITHOUT ROWID`
    /// table) identified: the same `Z_PK` when the table had one, else looked up by the key.
    private func translate(_ oldEntity: String, _ expression: String) -> String {
        guard let oldTable = old.table(for: oldEntity), case .attribute(let key) = oldTable.primaryKey,
            let newEntity = plan.sourceEntities.first(where: { $0.value == oldEntity })?.key,
            let newKey = plan.sourceProperties[newEntity]?.first(where: { $0.value == key })?.key
        else { return expression }
        return
            "(SELECT \(quoteIdentifier(Model.primaryKeyColumn)) FROM \(quoteIdentifier(new.table(for: newEntity)?.name ?? newEntity)) WHERE \(quoteIdentifier(newKey)) = \(expression))"
    }

    /// A query giving (src, dst, pos, ipos) of a relationship as the old store kept it: src and dst are
    /// old keys (`Z_PK`, or the key attribute of a `WITHOUT ROWID` table), pos orders the destinations
    /// of a source and ipos the sources of a destination.
    private func pairs(of relationship: Relationship, in entity: String) -> (sql: String, ordered: Bool)? {
        let entity = old.table(for: entity)?.name ?? entity
        if let table = old.table(for: entity), table.foreignKeys.contains(where: { $0.column == relationship.name }) {
            let column = quoteIdentifier(relationship.name)
            return (
                "SELECT \(quoteIdentifier(table.keyColumn)) AS src, \(column) AS dst, 0 AS pos, 0 AS ipos FROM \(quoteIdentifier(oldName(entity))) WHERE \(column) IS NOT NULL",
                false
            )
        }
        for join in old.joinTables {
            let position = join.positionColumn.map(quoteIdentifier) ?? "0"
            let inversePosition = join.inversePositionColumn.map(quoteIdentifier) ?? "0"
            if join.sourceEntity == entity && join.relationship == relationship.name {
                return (
                    "SELECT \"source\" AS src, \"destination\" AS dst, \(position) AS pos, \(inversePosition) AS ipos FROM \(quoteIdentifier(oldName(join.name)))",
                    join.isOrdered
                )
            }
            if join.destinationEntity == entity && join.inverse == relationship.name {
                return (
                    "SELECT \"destination\" AS src, \"source\" AS dst, \(inversePosition) AS pos, \(position) AS ipos FROM \(quoteIdentifier(oldName(join.name)))",
                    join.isOrdered
                )
            }
        }
        if let inverse = relationship.inverse, let other = old.table(for: relationship.destination),
            other.foreignKeys.contains(where: { $0.column == inverse })
        {
            let column = quoteIdentifier(inverse)
            return (
                "SELECT \(column) AS src, \(quoteIdentifier(other.keyColumn)) AS dst, 0 AS pos, 0 AS ipos FROM \(quoteIdentifier(oldName(other.name))) WHERE \(column) IS NOT NULL",
                false
            )
        }
        return nil
    }

    /// Creates an index; a unique one that fails names duplicate examples.
    private func createIndex(_ statement: String) throws {
        do {
            try db.execute(sql: statement)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            guard let on = statement.range(of: " ON "), let open = statement.range(of: " (", range: on.upperBound..<statement.endIndex)
            else { throw error }
            let table = String(statement[on.upperBound..<open.lowerBound])
            let columns = String(statement[open.upperBound...].dropLast())
            let examples = try Row.fetchAll(
                db, sql: "SELECT \(columns), count(*) FROM \(table) GROUP BY \(columns) HAVING count(*) > 1 LIMIT 3")
            let shown = examples.map { row in
                "(" + (0..<(row.count - 1)).map { "\(row[$0] ?? "NULL")" }.joined(separator: ", ") + ") ×\(row[row.count - 1] ?? 0)"
            }
            throw StoreError(
                .refused, path: path,
                "the new uniqueness constraint on \(table) (\(columns)) has duplicates, e.g. \(shown.joined(separator: ", ")); remove them from the data first"
            )
        }
    }

    /// Entity → rows now; every entity that existed before must still have its rows.
    func checkRowCounts(expected: [String: Int64]) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in new.tables {
            for entity in table.members {
                let count = try new.rowCount(of: entity, in: db)
                counts[entity] = count
                if let sourceName = plan.sourceEntities[entity], let before = expected[sourceName], before != count {
                    throw StoreError(
                        .refused, path: path, "\(entity) had \(before) rows and has \(count) after migrating; the migration was not written"
                    )
                }
            }
        }
        return counts
    }
}
