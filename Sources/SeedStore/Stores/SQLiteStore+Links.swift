import Foundation
import GRDB
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
            throw StoreError(.refused, path: path, "\(link.entity) has no relationship \(link.relationship) in \(storeDescription.displayName)")
        }
        let source = resolve(link.source)
        let destination = link.destination.map(resolve)
        switch schema.storage.place(of: link.relationship, in: table.name) {
        case .column:
            try db.execute(
                sql: "UPDATE \(quoteIdentifier(table.name)) SET \(quoteIdentifier(link.relationship)) = ? WHERE \(quoteIdentifier(table.keyColumn)) = ?",
                arguments: [(link.kind == .remove ? nil : destination)?.databaseValue ?? .null, source.databaseValue])
        case .joinTable(let join):
            try applyJoin(db, join: join, owner: source, other: destination, kind: link.kind, ownerIsSource: true)
        case .inverse:
            guard let inverse = relationship.inverse, let destinationTable = schema.table(for: relationship.destination) else { return }
            switch schema.storage.place(of: inverse, in: destinationTable.name) {
            case .column:
                let target = "UPDATE \(quoteIdentifier(destinationTable.name)) SET \(quoteIdentifier(inverse))"
                let keyColumn = quoteIdentifier(destinationTable.keyColumn)
                switch link.kind {
                case .set:
                    try db.execute(sql: "\(target) = NULL WHERE \(quoteIdentifier(inverse)) = ?", arguments: [source.databaseValue])
                    if let destination {
                        try db.execute(sql: "\(target) = ? WHERE \(keyColumn) = ?", arguments: [source.databaseValue, destination.databaseValue])
                    }
                case .add:
                    try db.execute(sql: "\(target) = ? WHERE \(keyColumn) = ?", arguments: [source.databaseValue, destination?.databaseValue ?? .null])
                case .remove:
                    try db.execute(
                        sql: "\(target) = NULL WHERE \(keyColumn) = ? AND \(quoteIdentifier(inverse)) = ?",
                        arguments: [destination?.databaseValue ?? .null, source.databaseValue])
                }
            case .joinTable(let join):
                try applyJoin(db, join: join, owner: source, other: destination, kind: link.kind, ownerIsSource: false)
            case .inverse:
                return
            }
        }
    }

    private func applyJoin(_ db: Database, join: JoinTable, owner: StoreValue, other: StoreValue?, kind: StoreChanges.Link.Kind, ownerIsSource: Bool) throws {
        let name = quoteIdentifier(join.name)
        let ownerColumn = ownerIsSource ? "source" : "destination"
        if kind == .set {
            try db.execute(sql: "DELETE FROM \(name) WHERE \(ownerColumn) = ?", arguments: [owner.databaseValue])
        }
        guard let other else { return }
        let (source, destination) = ownerIsSource ? (owner, other) : (other, owner)
        if kind == .remove {
            try db.execute(sql: "DELETE FROM \(name) WHERE source = ? AND destination = ?", arguments: [source.databaseValue, destination.databaseValue])
        } else if join.isOrdered {
            try db.execute(
                sql: "INSERT OR IGNORE INTO \(name) (source, destination, position) VALUES (?, ?, (SELECT coalesce(max(position) + 1, 0) FROM \(name) WHERE source = ?))",
                arguments: [source.databaseValue, destination.databaseValue, source.databaseValue])
        } else {
            try db.execute(sql: "INSERT OR IGNORE INTO \(name) (source, destination) VALUES (?, ?)", arguments: [source.databaseValue, destination.databaseValue])
        }
    }

    /// Deletes a row following its relationships' delete rules: cascade deletes the destinations,
    /// deny refuses while any remain, nullify and no-action clear the links.
    func deleteRow(_ db: Database, entity: String, key: StoreValue, visited: inout Set<String>) throws {
        let table = try table(entity)
        // Rows are named by their table, so a sub-entity's object reached as its parent entity is one row.
        let entity = table.name
        guard visited.insert("\(entity)\u{0}\(key.displayText)").inserted else { return }
        for relationship in table.entity.relationships where relationship.deleteRule == .cascade || relationship.deleteRule == .deny {
            let related = try relatedKeys(db, entity: entity, key: key, relationship: relationship.name)
            guard !related.isEmpty else { continue }
            if relationship.deleteRule == .deny {
                throw StoreError(
                    .refused, path: path,
                    "cannot delete \(entity) \(key.displayText): its relationship \(relationship.name) has the Deny rule and still holds \(related.count) \(relationship.destination) objects; delete or unlink them first")
            }
            for destinationKey in related {
                try deleteRow(db, entity: relationship.destination, key: destinationKey, visited: &visited)
            }
        }
        for other in schema.tables {
            for column in other.columns {
                guard case .toOne(let relationship) = column.kind, relationship.destination == entity else { continue }
                try db.execute(
                    sql: "UPDATE \(quoteIdentifier(other.name)) SET \(quoteIdentifier(column.name)) = NULL WHERE \(quoteIdentifier(column.name)) = ?",
                    arguments: [key.databaseValue])
            }
        }
        for join in schema.joinTables {
            if join.sourceEntity == entity {
                try db.execute(sql: "DELETE FROM \(quoteIdentifier(join.name)) WHERE source = ?", arguments: [key.databaseValue])
            }
            if join.destinationEntity == entity {
                try db.execute(sql: "DELETE FROM \(quoteIdentifier(join.name)) WHERE destination = ?", arguments: [key.databaseValue])
            }
        }
        try db.execute(sql: "DELETE FROM \(quoteIdentifier(entity)) WHERE \(quoteIdentifier(table.keyColumn)) = ?", arguments: [key.databaseValue])
        if hasVersionTable {
            try db.execute(sql: "DELETE FROM \(Self.versionTable) WHERE entity = ? AND key = ?", arguments: [entity, key.databaseValue])
        }
    }
}
