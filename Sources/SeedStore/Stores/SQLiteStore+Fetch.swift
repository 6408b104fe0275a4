import Foundation
import GRDB
import SeedModel

extension SQLiteStore {
    public func fetch(_ request: StoreFetch) throws -> [StoreRow] {
        let table = try table(request.entity)
        guard let query = try query(request, table: table, counting: false) else { return [] }
        let valueColumns = table.columns.filter { if case .primaryKey = $0.kind { false } else { true } }.map(\.name)
        let sortCount = request.sortDescriptors.count
        return try queue.read { db in
            var rows: [StoreRow] = []
            let cursor = try Row.fetchCursor(db, sql: query.sql, arguments: StatementArguments(query.arguments.map(\.databaseValue)))
            var columns: [StoreValue] = []
            columns.reserveCapacity(valueColumns.count + 2 + sortCount)
            while let row = try cursor.next() {
                columns.removeAll(keepingCapacity: true)
                // By index: `row.databaseValues` makes each column's name as a String too, for every row.
                for index in 0..<row.count {
                    let value: DatabaseValue = row[index]
                    columns.append(StoreValue(value))
                }
                var values = [String: StoreValue](minimumCapacity: valueColumns.count)
                for (offset, name) in valueColumns.enumerated() { values[name] = columns[offset + 1] }
                let version = columns[valueColumns.count + 1].integerValue ?? 1
                let sortValues = sortCount == 0 ? [] : Array(columns[(valueColumns.count + 2)...])
                // A tree's row names its own entity, which may be a sub-entity of the one fetched.
                let entity = table.isTree ? values[Model.entityColumn]?.stringValue ?? request.entity : request.entity
                rows.append(StoreRow(entity: entity, key: columns[0], values: values, version: version, sortValues: sortValues))
            }
            return rows
        }
    }

    public func count(_ request: StoreFetch) throws -> Int {
        let table = try table(request.entity)
        guard let query = try query(request, table: table, counting: true) else { return 0 }
        return try queue.read { db in
            try Int.fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments.map(\.databaseValue))) ?? 0
        }
    }

    /// The SELECT for a fetch, or nil when it cannot match anything (an empty key list).
    private func query(_ request: StoreFetch, table: EntityTable, counting: Bool) throws -> (sql: String, arguments: [StoreValue])? {
        var joins: [String] = []
        var conditions: [String] = []
        var arguments: [StoreValue] = []
        if let predicate = request.predicate {
            let compiled = try PredicateSQL(predicate, table: table, schema: schema, format: predicate.description)
            joins = compiled.joins
            conditions.append(compiled.whereClause)
            arguments = compiled.arguments
        }
        let key = "t0.\(quoteIdentifier(table.keyColumn))"
        if let kinds = table.entityFilter(for: request.entity) {
            conditions.append("t0.\(quoteIdentifier(Model.entityColumn)) IN (\(Array(repeating: "?", count: kinds.count).joined(separator: ", ")))")
            arguments += kinds.map(StoreValue.text)
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
            return ("SELECT count(*) FROM (\(inner))", arguments)
        }
        var columns = [key]
        for column in table.columns {
            if case .primaryKey = column.kind { continue }
            columns.append("t0.\(quoteIdentifier(column.name))")
        }
        columns.append(versionExpression(entity: table.name, key: key))
        columns += sortColumns
        let orderTerms = zip(sortColumns, request.sortDescriptors).map { "\($0) \($1.ascending ? "ASC" : "DESC")" } + [key]
        let sql = "SELECT " + columns.joined(separator: ", ") + from + whereClause
            + " ORDER BY " + orderTerms.joined(separator: ", ") + limitClause(request, arguments: &arguments)
        return (sql, arguments)
    }

    private func limitClause(_ request: StoreFetch, arguments: inout [StoreValue]) -> String {
        guard request.fetchLimit != nil || request.fetchOffset > 0 else { return "" }
        // A negative limit means none and a negative offset none, as SQLite reads them.
        arguments.append(.integer(Int64(request.fetchLimit ?? -1)))
        arguments.append(.integer(Int64(max(0, request.fetchOffset))))
        return " LIMIT ? OFFSET ?"
    }

    /// The version of the row `key` names: its `seed_object_version` entry, else 1.
    func versionExpression(entity: String, key: String) -> String {
        hasVersionTable
            ? "coalesce((SELECT version FROM \(Self.versionTable) WHERE entity = \(sqlLiteral(entity)) AND key = \(key)), 1)"
            : "1"
    }

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
        switch schema.storage.place(of: name, in: table.name) {
        case .column:
            let value = try DatabaseValue.fetchOne(
                db, sql: "SELECT \(quoteIdentifier(name)) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.keyColumn)) = ?", arguments: keyArgument)
            return value.map(StoreValue.init).flatMap { $0.isNull ? nil : [$0] } ?? []
        case .joinTable(let join):
            let order = join.isOrdered ? "position, destination" : "destination"
            return try DatabaseValue.fetchAll(
                db, sql: "SELECT destination FROM \(quoteIdentifier(join.name)) WHERE source = ? ORDER BY \(order)", arguments: keyArgument
            ).map(StoreValue.init)
        case .inverse:
            guard let inverse = relationship.inverse, let destination = schema.table(for: relationship.destination) else { return [] }
            switch schema.storage.place(of: inverse, in: destination.name) {
            case .column:
                return try DatabaseValue.fetchAll(
                    db,
                    sql: "SELECT \(quoteIdentifier(destination.keyColumn)) FROM \(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(inverse)) = ? ORDER BY 1",
                    arguments: keyArgument
                ).map(StoreValue.init)
            case .joinTable(let join):
                let order = join.isOrdered ? "position, source" : "source"
                return try DatabaseValue.fetchAll(
                    db, sql: "SELECT source FROM \(quoteIdentifier(join.name)) WHERE destination = ? ORDER BY \(order)", arguments: keyArgument
                ).map(StoreValue.init)
            case .inverse:
                return []
            }
        }
    }
}
