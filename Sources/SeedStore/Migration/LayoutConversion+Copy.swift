internal import GRDB
import SeedModel

/// The copy of rows, row versions and links from the attached `old` database into the new tables.
///
/// Every value arrives exactly as it was stored: where both layouts keep an attribute in the same
/// form (``StoredForms``) the stored value is copied as it is, and converted only where the forms
/// differ; a tree's column keeps its value in every row, and of two columns for one name
/// (`ZDELIVERED` and `ZDELIVERED1`) a row fills the one its entity declares; row versions travel between `Z_OPT` and `seed_object_version`; both order columns
/// of a many-to-many ordered on both sides are kept.
struct LayoutCopy {
    let db: Database
    let old: StoreSchema
    let new: StoreSchema
    /// Root entity → SQL selecting (old key, new key) where the two layouts key its rows differently.
    private var keyMaps: [String: String] = [:]

    init(db: Database, old: StoreSchema, new: StoreSchema) {
        self.db = db
        self.old = old
        self.new = new
    }

    /// The old table's key as the new table keys the row.
    private func newKey(_ oldTable: EntityTable, _ newTable: EntityTable, alias: String) -> String {
        switch (oldTable.primaryKey, newTable.primaryKey) {
        case (.rowid, .rowid): "\(alias).\(quoteIdentifier(oldTable.keyColumn))"
        case (.attribute(let key), .rowid): "row_number() OVER (ORDER BY \(alias).\(quoteIdentifier(oldTable.columnName(for: key))))"
        case (_, .attribute): oldTable.readExpression(for: oldTable.column(for: newTable.keyColumn)!, alias: alias)
        }
    }

    /// The version of the old row at `alias`: `Z_OPT`, its `seed_object_version` entry, else 1.
    private func oldVersion(_ oldTable: EntityTable, alias: String, hasVersionTable: Bool) -> String {
        if let column = oldTable.versionColumn { return "coalesce(\(alias).\(quoteIdentifier(column)), 1)" }
        guard hasVersionTable else { return "1" }
        return "coalesce((SELECT v.version FROM old.\(ObjectVersionTable.name) AS v WHERE v.entity = \(sqlLiteral(oldTable.entity.name)) "
            + "AND v.key = \(alias).\(quoteIdentifier(oldTable.keyColumn))), 1)"
    }

    mutating func rows() throws {
        let hasVersionTable =
            try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM old.sqlite_master WHERE name = ?", arguments: [ObjectVersionTable.name])
            ?? false
        for table in new.tables {
            guard let oldTable = old.table(for: table.entity.name) else { continue }
            if oldTable.primaryKey != table.primaryKey {
                // Links name the rows by key: map the old keys to the new ones once.
                let map = "keymap_\(keyMaps.count)"
                try db.execute(
                    sql:
                        "CREATE TEMP TABLE \(map) AS SELECT o.\(quoteIdentifier(oldTable.keyColumn)) AS old, \(newKey(oldTable, table, alias: "o")) AS new FROM old.\(quoteIdentifier(oldTable.name)) AS o"
                )
                keyMaps[table.entity.name] = map
            }
            for member in table.members {
                var columns: [String] = []
                var values: [String] = []
                for column in table.columns {
                    // Every row keeps what each column of its tree's table holds, whichever entity declares
                    // the column (Core Data's migration fills a new column with its default in every row of
                    // the tree). Only where two entities declare one name (ZDELIVERED, ZDELIVERED1: one
                    // column in the plain layout) does a row fill just the one its entity declares.
                    if let property = column.property, column.owner != nil, table.column(for: property, of: member)?.name != column.name {
                        continue
                    }
                    let value: String?
                    switch column.kind {
                    case .primaryKey: value = newKey(oldTable, table, alias: "o")
                    case .entity: value = table.entityValue(member).sqlLiteral
                    case .version: value = oldVersion(oldTable, alias: "o", hasVersionTable: hasVersionTable)
                    case .attribute(let attribute):
                        guard let oldColumn = oldTable.column(for: attribute.name, of: member) else { continue }
                        value = attributeValue(oldColumn, of: oldTable, into: column, of: table)
                    case .toOne(let relationship):
                        // Copied with the row where both layouts keep it in a column of this table, so a
                        // required one is never NULL; links() copies the rest.
                        guard old.storage.place(of: relationship.name, in: table.entity.name) == .column,
                            let oldColumn = oldTable.column(for: relationship.name, of: member),
                            let destination = new.table(for: relationship.destination), destination.primaryKey == .rowid,
                            old.table(for: relationship.destination)?.primaryKey == .rowid
                        else { continue }
                        value = "o.\(quoteIdentifier(oldColumn.name))"
                    case .toOneEntity, .toOneOrder, .toManyWithoutInverse: value = nil
                    }
                    guard let value else { continue }
                    columns.append(quoteIdentifier(column.name))
                    values.append(value)
                }
                var filter = ""
                if oldTable.isTree, let entityColumn = oldTable.entityColumn {
                    filter = " WHERE o.\(quoteIdentifier(entityColumn.name)) = \(oldTable.entityValue(member).sqlLiteral)"
                } else if member != table.members[0] {
                    continue
                }
                try db.execute(
                    sql: """
                        INSERT INTO main.\(quoteIdentifier(table.name)) (\(columns.joined(separator: ", ")))
                        SELECT \(values.joined(separator: ", ")) FROM old.\(quoteIdentifier(oldTable.name)) AS o\(filter) ORDER BY o.\(quoteIdentifier(oldTable.keyColumn))
                        """)
            }
            if table.versionColumn == nil {
                try versions(of: table, from: oldTable, hasVersionTable: hasVersionTable)
            }
        }
    }

    /// The SQL giving an old column's value in the new column's form: the stored value itself where
    /// both keep the same form, else through the runtime's form.
    private func attributeValue(
        _ oldColumn: EntityTable.Column, of oldTable: EntityTable, into column: EntityTable.Column, of table: EntityTable
    ) -> String {
        if case .attribute(let oldAttribute) = oldColumn.kind, case .attribute(let attribute) = column.kind,
            oldTable.storedForms.covers(oldAttribute) == table.storedForms.covers(attribute)
        {
            return "o.\(quoteIdentifier(oldColumn.name))"
        }
        return table.boundExpression(for: column).replacingOccurrences(of: "?", with: oldTable.readExpression(for: oldColumn, alias: "o"))
    }

    /// Row versions other than 1 into `seed_object_version`, for a new table that keeps none in its rows.
    private func versions(of table: EntityTable, from oldTable: EntityTable, hasVersionTable: Bool) throws {
        let version = oldVersion(oldTable, alias: "o", hasVersionTable: hasVersionTable)
        guard version != "1" else { return }
        let rows = "FROM old.\(quoteIdentifier(oldTable.name)) AS o WHERE \(version) <> 1"
        guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 \(rows)") == true else { return }
        if try !db.tableExists(ObjectVersionTable.name) { try ObjectVersionTable.create(db) }
        try db.execute(
            sql: """
                INSERT INTO main.\(ObjectVersionTable.name) (entity, key, version)
                SELECT \(sqlLiteral(table.entity.name)), \(newKey(oldTable, table, alias: "o")), \(version) \(rows)
                """)
    }

    /// Copies every relationship once, from wherever the old layout keeps it to wherever the new one does.
    mutating func links() throws {
        for table in new.tables {
            for relationship in table.entity.relationships where !relationship.isTransient {
                let place = new.storage.place(of: relationship.name, in: table.entity.name)
                if case .inverse = place { continue }
                guard try pairs(table.entity.name, relationship) != nil else { continue }
                defer { try? db.execute(sql: "DROP TABLE temp.pairs") }
                let destination = new.table(for: relationship.destination)
                switch place {
                case .column:
                    let name = quoteIdentifier(table.name)
                    var sets = ["\(quoteIdentifier(table.columnName(for: relationship.name))) = p.dst"]
                    if let column = table.entityColumn(forToOne: relationship.name), let destination {
                        sets.append(
                            "\(quoteIdentifier(column)) = (SELECT d.Z_ENT FROM main.\(quoteIdentifier(destination.name)) AS d WHERE d.Z_PK = p.dst)"
                        )
                    }
                    if let column = table.orderColumn(forToOne: relationship.name) {
                        sets.append("\(quoteIdentifier(column)) = p.ipos")
                    }
                    try db.execute(
                        sql:
                            "UPDATE main.\(name) SET \(sets.joined(separator: ", ")) FROM temp.pairs AS p WHERE main.\(name).\(quoteIdentifier(table.keyColumn)) = p.src"
                    )
                case .joinTable(let join):
                    var columns = [join.sourceColumn, join.destinationColumn].map(quoteIdentifier)
                    var values = ["src", "dst"]
                    // Positions count from 1 in `pairs` and in Core Data's layout, from 0 in the plain one.
                    let shift = join.layout == .coreData ? "" : " - 1"
                    if let position = join.positionColumn {
                        columns.append(quoteIdentifier(position))
                        values.append(
                            join.inversePositionColumn == position ? "coalesce(pos, ipos, 1)\(shift)" : "coalesce(pos, 1)\(shift)")
                    }
                    if let position = join.inversePositionColumn, position != join.positionColumn {
                        columns.append(quoteIdentifier(position))
                        values.append("coalesce(ipos, 1)\(shift)")
                    }
                    try db.execute(
                        sql:
                            "INSERT INTO main.\(quoteIdentifier(join.name)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM temp.pairs"
                    )
                case .foreignColumn(let column):
                    guard let destination else { continue }
                    let name = quoteIdentifier(destination.name)
                    try db.execute(
                        sql:
                            "UPDATE main.\(name) SET \(quoteIdentifier(column)) = p.src FROM temp.pairs AS p WHERE main.\(name).\(quoteIdentifier(destination.keyColumn)) = p.dst"
                    )
                case .inverse:
                    continue
                }
            }
        }
    }

    /// A temp table `pairs(src, dst, pos, ipos)` of one relationship's links in the old store, keyed as
    /// the new store keys rows: `pos` orders the destinations of a source, `ipos` the sources of a
    /// destination (in the inverse), each counting from 1 where the old layout keeps that order; nil
    /// when the old store does not keep the relationship.
    private func pairs(_ entity: String, _ relationship: Relationship) throws -> Bool? {
        guard let table = old.table(for: entity), let destination = old.table(for: relationship.destination) else { return nil }
        func order(_ column: String?, in join: JoinTable) -> String {
            column.map { join.layout == .plain ? "\(quoteIdentifier($0)) + 1" : quoteIdentifier($0) } ?? "NULL"
        }
        let select: String
        switch old.storage.place(of: relationship.name, in: table.entity.name) {
        case .column:
            let column = quoteIdentifier(table.columnName(for: relationship.name))
            let order = table.orderColumn(forToOne: relationship.name).map { quoteIdentifier($0) } ?? "NULL"
            select =
                "SELECT \(quoteIdentifier(table.keyColumn)) AS src, \(column) AS dst, NULL AS pos, \(order) AS ipos FROM old.\(quoteIdentifier(table.name)) WHERE \(column) IS NOT NULL"
        case .joinTable(let join):
            select =
                "SELECT \(quoteIdentifier(join.sourceColumn)) AS src, \(quoteIdentifier(join.destinationColumn)) AS dst, "
                + "\(order(join.positionColumn, in: join)) AS pos, \(order(join.inversePositionColumn, in: join)) AS ipos FROM old.\(quoteIdentifier(join.name))"
        case .foreignColumn(let column):
            select =
                "SELECT \(quoteIdentifier(column)) AS src, \(quoteIdentifier(destination.keyColumn)) AS dst, NULL AS pos, NULL AS ipos FROM old.\(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(column)) IS NOT NULL"
        case .inverse:
            guard let inverse = relationship.inverse else { return nil }
            switch old.storage.place(of: inverse, in: destination.entity.name) {
            case .column:
                let column = quoteIdentifier(destination.columnName(for: inverse))
                let order = destination.orderColumn(forToOne: inverse).map { quoteIdentifier($0) } ?? "NULL"
                select =
                    "SELECT \(column) AS src, \(quoteIdentifier(destination.keyColumn)) AS dst, \(order) AS pos, NULL AS ipos FROM old.\(quoteIdentifier(destination.name)) WHERE \(column) IS NOT NULL"
            case .joinTable(let join):
                select =
                    "SELECT \(quoteIdentifier(join.destinationColumn)) AS src, \(quoteIdentifier(join.sourceColumn)) AS dst, "
                    + "\(order(join.inversePositionColumn, in: join)) AS pos, \(order(join.positionColumn, in: join)) AS ipos FROM old.\(quoteIdentifier(join.name))"
            case .foreignColumn, .inverse:
                return nil
            }
        }
        let source = keyMaps[table.entity.name].map { "(SELECT new FROM temp.\($0) WHERE old = l.src)" } ?? "l.src"
        let target = keyMaps[destination.entity.name].map { "(SELECT new FROM temp.\($0) WHERE old = l.dst)" } ?? "l.dst"
        try db.execute(
            sql: "CREATE TEMP TABLE pairs AS SELECT \(source) AS src, \(target) AS dst, l.pos AS pos, l.ipos AS ipos FROM (\(select)) AS l")
        return true
    }
}
