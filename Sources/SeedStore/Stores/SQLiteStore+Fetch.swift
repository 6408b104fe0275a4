import Foundation
internal import GRDB
import SeedModel

extension SQLiteStore {
    /// Rows of one entity matching `request`.
    public func fetch(_ request: StoreFetch) throws -> [StoreRow] {
        let table = try table(request.entity)
        guard let query = try query(request, table: table, counting: false) else { return [] }
        var reader = TableRowReader(table: table)
        let valueCount = reader.columns.count
        return try queue.read { db in
            // The key, the value columns, the version, then the sort keys that are not value columns (see `query`).
            let cursor = try StoreValueCursor(db, sql: query.sql, arguments: query.arguments)
            // Every row's values, then its sort values, in one array that the rows share as slices.
            let width = valueCount + query.sortSources.count
            var values: [StoreValue] = []
            var heads: [(key: StoreValue, entity: String, layout: RowLayout, version: Int64)] = []
            while try cursor.next() {
                let start = values.count
                for index in 1..<(valueCount + 1) { values.append(cursor.value(at: index)) }
                for source in query.sortSources {
                    switch source {
                    case .value(let offset): values.append(values[start + offset])
                    case .selected(let index): values.append(cursor.value(at: index))
                    }
                }
                let (entity, layout) = reader.finishRow(&values, from: start, entity: request.entity)
                heads.append((cursor.value(at: 0), entity, layout, cursor.value(at: valueCount + 1).integerValue ?? 1))
            }
            // Sliced once every value is in: a slice taken while the array still grew would copy it.
            return heads.indices.map { row in
                let head = heads[row]
                let columns = values[(row * width)..<((row + 1) * width)]
                return StoreRow(
                    entity: head.entity, key: head.key, storage: RowValues(layout: head.layout, columns: columns), version: head.version)
            }
        }
    }

    /// How many rows of one entity match `request`.
    public func count(_ request: StoreFetch) throws -> Int {
        let table = try table(request.entity)
        guard let query = try query(request, table: table, counting: true) else { return 0 }
        return try queue.read { db in
            try Int.fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments.map(\.databaseValue))) ?? 0
        }
    }

    /// Where a fetched row's sort value comes from: a value column already read (the common sort by
    /// an attribute, not read twice), or a column of its own in the SELECT.
    private enum SortSource {
        case value(Int)
        case selected(Int)
    }

    /// The SELECT for a fetch, or nil when it cannot match anything (an empty key list).
    private func query(_ request: StoreFetch, table: EntityTable, counting: Bool) throws -> (
        sql: String, arguments: [StoreValue], sortSources: [SortSource]
    )? {
        var joins: [String] = []
        var conditions: [String] = []
        var arguments: [StoreValue] = []
        if let predicate = request.predicate {
            let compiled = try PredicateSQL(
                predicate, table: table, schema: schema, format: predicate.description, storeIdentifier: identifier)
            joins = compiled.joins
            conditions.append(compiled.whereClause)
            arguments = compiled.arguments
        }
        let key = "t0.\(quoteIdentifier(table.keyColumn))"
        if let restriction = table.entityRestriction(for: request.entity) {
            conditions.append(
                "t0.\(quoteIdentifier(restriction.column)) IN (\(Array(repeating: "?", count: restriction.values.count).joined(separator: ", ")))"
            )
            arguments += restriction.values
        }
        if let keys = request.keys {
            guard !keys.isEmpty else { return nil }
            conditions.append("\(key) IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))")
            arguments += keys
        }
        var sortColumns: [String] = []
        for descriptor in request.sortDescriptors {
            let path = descriptor.keyPath.split(separator: ".").map(String.init)
            sortColumns.append(try PredicateSQL.column(for: path, table: table, schema: schema, joins: &joins))
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let from = " FROM \(quoteIdentifier(table.name)) AS t0" + joins.map { " " + $0 }.joined()
        if counting {
            let inner = "SELECT 1" + from + whereClause + limitClause(request, arguments: &arguments)
            return ("SELECT count(*) FROM (\(inner))", arguments, [])
        }
        let valueColumns = table.columns.filter(\.holdsObjectValue).map { "t0.\(quoteIdentifier($0.name))" }
        var columns = [key] + valueColumns + [versionExpression(table: table, alias: "t0")]
        let sortSources = sortColumns.map { sortColumn in
            if let offset = valueColumns.firstIndex(of: sortColumn) { return SortSource.value(offset) }
            columns.append(sortColumn)
            return .selected(columns.count - 1)
        }
        let orderTerms = zip(sortColumns, request.sortDescriptors).map { "\($0) \($1.ascending ? "ASC" : "DESC")" } + [key]
        let sql =
            "SELECT " + columns.joined(separator: ", ") + from + whereClause
            + " ORDER BY " + orderTerms.joined(separator: ", ") + limitClause(request, arguments: &arguments)
        return (sql, arguments, sortSources)
    }

    private func limitClause(_ request: StoreFetch, arguments: inout [StoreValue]) -> String {
        guard request.fetchLimit != nil || request.fetchOffset > 0 else { return "" }
        // A negative limit means none and a negative offset none, as SQLite reads them.
        arguments.append(.integer(Int64(request.fetchLimit ?? -1)))
        arguments.append(.integer(Int64(max(0, request.fetchOffset))))
        return " LIMIT ? OFFSET ?"
    }

    /// The version of the row at `alias`: Core Data's `Z_OPT`, or its `seed_object_version` entry, else 1.
    func versionExpression(table: EntityTable, alias: String) -> String {
        if let column = table.versionColumn { return "coalesce(\(alias).\(quoteIdentifier(column)), 1)" }
        let key = "\(alias).\(quoteIdentifier(table.keyColumn))"
        return hasVersionTable
            ? "coalesce((SELECT version FROM \(ObjectVersionTable.name) WHERE entity = \(sqlLiteral(table.entity.name)) AND key = \(key)), 1)"
            : "1"
    }

    /// The keys of the objects a relationship of one object points at, in order for an ordered one.
    public func relatedKeys(entity: String, key: StoreValue, relationship: String) throws -> [StoreValue] {
        try queue.read { db in try relatedKeys(db, entity: entity, key: key, relationship: relationship) }
    }

    /// The keys a relationship of one row points at, read from its column, its inverse's column or a join table.
    func relatedKeys(_ db: Database, entity: String, key: StoreValue, relationship name: String) throws -> [StoreValue] {
        let table = try table(entity)
        guard let relationship = table.entity.relationship(named: name) else {
            throw StoreError(.refused, path: path, "\(entity) has no relationship \(name) stored in \(storeDescription.displayName)")
        }
        let keyArgument = StatementArguments([key.databaseValue])
        switch schema.storage.place(of: name, in: table.entity.name) {
        case .column:
            let value = try DatabaseValue.fetchOne(
                db,
                sql:
                    "SELECT \(quoteIdentifier(table.columnName(for: name))) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.keyColumn)) = ?",
                arguments: keyArgument)
            return value.map(StoreValue.init).flatMap { $0.isNull ? nil : [$0] } ?? []
        case .joinTable(let join):
            let (source, destination) = (quoteIdentifier(join.sourceColumn), quoteIdentifier(join.destinationColumn))
            let order = join.positionColumn.map { "\(quoteIdentifier($0)), \(destination)" } ?? destination
            return try DatabaseValue.fetchAll(
                db, sql: "SELECT \(destination) FROM \(quoteIdentifier(join.name)) WHERE \(source) = ? ORDER BY \(order)",
                arguments: keyArgument
            ).map(StoreValue.init)
        case .foreignColumn(let column):
            guard let destination = schema.table(for: relationship.destination) else { return [] }
            return try DatabaseValue.fetchAll(
                db,
                sql:
                    "SELECT \(quoteIdentifier(destination.keyColumn)) FROM \(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(column)) = ? ORDER BY 1",
                arguments: keyArgument
            ).map(StoreValue.init)
        case .inverse:
            guard let inverse = relationship.inverse, let destination = schema.table(for: relationship.destination) else { return [] }
            switch schema.storage.place(of: inverse, in: destination.entity.name) {
            case .column:
                // Core Data keeps an ordered to-many's order in the inverse's Z_FOK_ column.
                let order = destination.orderColumn(forToOne: inverse).map { "\(quoteIdentifier($0)), 1" } ?? "1"
                return try DatabaseValue.fetchAll(
                    db,
                    sql:
                        "SELECT \(quoteIdentifier(destination.keyColumn)) FROM \(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(destination.columnName(for: inverse))) = ? ORDER BY \(order)",
                    arguments: keyArgument
                ).map(StoreValue.init)
            case .joinTable(let join):
                let (source, destinationColumn) = (quoteIdentifier(join.sourceColumn), quoteIdentifier(join.destinationColumn))
                let order = join.inversePositionColumn.map { "\(quoteIdentifier($0)), \(source)" } ?? source
                return try DatabaseValue.fetchAll(
                    db, sql: "SELECT \(source) FROM \(quoteIdentifier(join.name)) WHERE \(destinationColumn) = ? ORDER BY \(order)",
                    arguments: keyArgument
                ).map(StoreValue.init)
            case .inverse, .foreignColumn:
                return []
            }
        }
    }
}
