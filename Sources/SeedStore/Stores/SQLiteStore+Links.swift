import Foundation
internal import GRDB
import SeedModel

extension SQLiteStore {
    /// Sets a to-one, or adds to or removes from a to-many, wherever the pair is stored.
    func apply(_ link: StoreChanges.Link, _ db: Database, insertedKeys: [StoreValue]) throws {
        func resolve(_ reference: RowReference) -> StoreValue {
            switch reference {
            case .stored(let key): key
            case .inserted(let index): insertedKeys[index]
            }
        }
        let table = try table(link.entity)
        guard let relationship = table.entity.relationship(named: link.relationship) else {
            throw StoreError(
                .refused, path: path, "\(link.entity) has no relationship \(link.relationship) in \(storeDescription.displayName)")
        }
        let source = resolve(link.source)
        let destination = link.destination.map(resolve)
        switch schema.storage.place(of: link.relationship, in: table.entity.name) {
        case .column:
            try setColumn(
                db, table: table, relationship: relationship, source: source, destination: link.kind == .remove ? nil : destination)
        case .joinTable(let join):
            try applyJoin(db, join: join, owner: source, other: destination, kind: link.kind, ownerIsSource: true)
        case .foreignColumn(let column):
            guard let destinationTable = schema.table(for: relationship.destination) else { return }
            try applyForeignColumn(
                db, table: destinationTable, column: column, orderColumn: nil, owner: source, other: destination, kind: link.kind)
        case .inverse:
            guard let inverse = relationship.inverse, let destinationTable = schema.table(for: relationship.destination) else { return }
            switch schema.storage.place(of: inverse, in: destinationTable.entity.name) {
            case .column:
                try applyForeignColumn(
                    db, table: destinationTable, column: destinationTable.columnName(for: inverse),
                    orderColumn: destinationTable.orderColumn(forToOne: inverse),
                    owner: source, other: destination, kind: link.kind)
            case .joinTable(let join):
                try applyJoin(db, join: join, owner: source, other: destination, kind: link.kind, ownerIsSource: false)
            case .inverse, .foreignColumn:
                return
            }
        }
    }

    /// Sets a to-one kept in a column of the source's row, with Core Data's destination-entity column,
    /// and the inverse's column when a one-to-one is kept on both sides.
    private func setColumn(_ db: Database, table: EntityTable, relationship: Relationship, source: StoreValue, destination: StoreValue?)
        throws
    {
        let name = quoteIdentifier(table.name)
        let key = quoteIdentifier(table.keyColumn)
        let column = quoteIdentifier(table.columnName(for: relationship.name))
        try db.execute(
            sql: "UPDATE \(name) SET \(column) = ? WHERE \(key) = ?",
            arguments: [destination?.databaseValue ?? .null, source.databaseValue])
        guard let destinationTable = schema.table(for: relationship.destination) else { return }
        if let entityColumn = table.entityColumn(forToOne: relationship.name) {
            try db.execute(
                sql:
                    "UPDATE \(name) SET \(quoteIdentifier(entityColumn)) = (SELECT Z_ENT FROM \(quoteIdentifier(destinationTable.name)) WHERE Z_PK = ?) WHERE \(key) = ?",
                arguments: [destination?.databaseValue ?? .null, source.databaseValue])
        }
        guard schema.storage.isMirrored(relationship.name, in: table.entity.name), let inverse = relationship.inverse else { return }
        let other = quoteIdentifier(destinationTable.name)
        let otherKey = quoteIdentifier(destinationTable.keyColumn)
        let otherColumn = quoteIdentifier(destinationTable.columnName(for: inverse))
        // The source's former partner lets go of it; the new partner's former source lets go of the partner.
        try db.execute(sql: "UPDATE \(other) SET \(otherColumn) = NULL WHERE \(otherColumn) = ?", arguments: [source.databaseValue])
        guard let destination else { return }
        try db.execute(
            sql: "UPDATE \(name) SET \(column) = NULL WHERE \(column) = ? AND \(key) <> ?",
            arguments: [destination.databaseValue, source.databaseValue])
        try db.execute(
            sql: "UPDATE \(other) SET \(otherColumn) = ? WHERE \(otherKey) = ?",
            arguments: [source.databaseValue, destination.databaseValue])
        if let entityColumn = destinationTable.entityColumn(forToOne: inverse) {
            try db.execute(
                sql:
                    "UPDATE \(other) SET \(quoteIdentifier(entityColumn)) = (SELECT Z_ENT FROM \(name) WHERE Z_PK = ?) WHERE \(otherKey) = ?",
                arguments: [source.databaseValue, destination.databaseValue])
        }
    }

    /// Sets, adds or removes a to-many kept in a column of the destination's rows (an inverse to-one,
    /// or Core Data's column for a to-many without inverse), keeping Core Data's order column.
    private func applyForeignColumn(
        _ db: Database, table: EntityTable, column: String, orderColumn: String?, owner: StoreValue, other: StoreValue?,
        kind: StoreChanges.Link.Kind
    ) throws {
        let target = "UPDATE \(quoteIdentifier(table.name)) SET \(quoteIdentifier(column))"
        let keyColumn = quoteIdentifier(table.keyColumn)
        let order = orderColumn.map {
            ", \(quoteIdentifier($0)) = (SELECT coalesce(max(\(quoteIdentifier($0))), 0) + 1 FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(column)) = ?)"
        }
        switch kind {
        case .set:
            try db.execute(sql: "\(target) = NULL WHERE \(quoteIdentifier(column)) = ?", arguments: [owner.databaseValue])
            fallthrough
        case .add:
            guard let other else { return }
            let arguments: [DatabaseValue] =
                order == nil
                ? [owner.databaseValue, other.databaseValue] : [owner.databaseValue, owner.databaseValue, other.databaseValue]
            try db.execute(sql: "\(target) = ?\(order ?? "") WHERE \(keyColumn) = ?", arguments: StatementArguments(arguments))
        case .remove:
            try db.execute(
                sql: "\(target) = NULL WHERE \(keyColumn) = ? AND \(quoteIdentifier(column)) = ?",
                arguments: [other?.databaseValue ?? .null, owner.databaseValue])
        }
    }

    private func applyJoin(
        _ db: Database, join: JoinTable, owner: StoreValue, other: StoreValue?, kind: StoreChanges.Link.Kind, ownerIsSource: Bool
    ) throws {
        let name = quoteIdentifier(join.name)
        let (sourceColumn, destinationColumn) = (quoteIdentifier(join.sourceColumn), quoteIdentifier(join.destinationColumn))
        let ownerColumn = ownerIsSource ? sourceColumn : destinationColumn
        if kind == .set {
            try db.execute(sql: "DELETE FROM \(name) WHERE \(ownerColumn) = ?", arguments: [owner.databaseValue])
        }
        guard let other else { return }
        let (source, destination) = ownerIsSource ? (owner, other) : (other, owner)
        if kind == .remove {
            try db.execute(
                sql: "DELETE FROM \(name) WHERE \(sourceColumn) = ? AND \(destinationColumn) = ?",
                arguments: [source.databaseValue, destination.databaseValue])
        } else {
            // A new link goes last in each ordered side: after the source's destinations, and after
            // the destination's sources where the inverse keeps its own order.
            var columns = [sourceColumn, destinationColumn]
            var values = ["?", "?"]
            var arguments = [source.databaseValue, destination.databaseValue]
            if let position = join.positionColumn.map(quoteIdentifier) {
                columns.append(position)
                values.append("(SELECT coalesce(max(\(position)) + 1, \(join.firstPosition)) FROM \(name) WHERE \(sourceColumn) = ?)")
                arguments.append(source.databaseValue)
            }
            if let position = join.inversePositionColumn, position != join.positionColumn {
                columns.append(quoteIdentifier(position))
                values.append(
                    "(SELECT coalesce(max(\(quoteIdentifier(position))) + 1, \(join.firstPosition)) FROM \(name) WHERE \(destinationColumn) = ?)"
                )
                arguments.append(destination.databaseValue)
            }
            try db.execute(
                sql: "INSERT OR IGNORE INTO \(name) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))",
                arguments: StatementArguments(arguments))
        }
    }

    /// Deletes a row following its relationships' delete rules: cascade deletes the destinations,
    /// deny refuses while any remain, nullify and no-action clear the links. Transient relationships
    /// hold nothing here; the context applies their rules.
    func deleteRow(_ db: Database, entity: String, key: StoreValue, visited: inout Set<String>) throws {
        let table = try table(entity)
        // Rows are named by their table, so a sub-entity's object reached as its parent entity is one row.
        let entity = table.entity.name
        guard visited.insert("\(entity)\u{0}\(key.displayText)").inserted else { return }
        for relationship in table.entity.relationships
        where !relationship.isTransient && (relationship.deleteRule == .cascade || relationship.deleteRule == .deny) {
            let related = try relatedKeys(db, entity: entity, key: key, relationship: relationship.name)
            guard !related.isEmpty else { continue }
            if relationship.deleteRule == .deny {
                throw StoreError(
                    .refused, path: path,
                    "cannot delete \(entity) \(key.displayText): its relationship \(relationship.name) has the Deny rule and still holds \(related.count) \(relationship.destination) objects; delete or unlink them first"
                )
            }
            for destinationKey in related {
                try deleteRow(db, entity: relationship.destination, key: destinationKey, visited: &visited)
            }
        }
        for other in schema.tables {
            for column in other.columns {
                switch column.kind {
                case .toOne(let relationship) where relationship.destination == entity: break
                case .toManyWithoutInverse(let source, _) where schema.table(for: source)?.entity.name == entity: break
                default: continue
                }
                try db.execute(
                    sql:
                        "UPDATE \(quoteIdentifier(other.name)) SET \(quoteIdentifier(column.name)) = NULL WHERE \(quoteIdentifier(column.name)) = ?",
                    arguments: [key.databaseValue])
            }
        }
        for join in schema.joinTables {
            if join.sourceEntity == entity {
                try db.execute(
                    sql: "DELETE FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.sourceColumn)) = ?",
                    arguments: [key.databaseValue])
            }
            if join.destinationEntity == entity {
                try db.execute(
                    sql: "DELETE FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.destinationColumn)) = ?",
                    arguments: [key.databaseValue])
            }
        }
        try db.execute(
            sql: "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.keyColumn)) = ?", arguments: [key.databaseValue])
        if hasVersionTable {
            try db.execute(
                sql: "DELETE FROM \(ObjectVersionTable.name) WHERE entity = ? AND key = ?", arguments: [entity, key.databaseValue])
        }
    }
}
