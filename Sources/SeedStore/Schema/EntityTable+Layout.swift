import Foundation
internal import GRDB
import SeedModel

/// The layout seam: how a table names the columns of properties and entities and how it keeps
/// values. The runtime speaks in property names and ``StoreValue``s as `docs/store-format.md`
/// defines them (dates since 1970, UUIDs as text); these turn them into the table's own.
extension EntityTable {
    /// The column of an attribute or to-one relationship; for a tree where two entities declare the
    /// same name (Core Data gives each a column), the one `entity` (or its ancestors) declares.
    package func column(for property: String, of entity: String? = nil) -> Column? {
        let candidates = columns.filter { $0.property == property }
        guard candidates.count > 1, let entity else { return candidates.first }
        return candidates.first { $0.owner.map { kinds[$0]?.contains(entity) ?? false } ?? false } ?? candidates.first
    }

    /// The SQL name of a property's column (in the plain layout, the property's own name).
    package func columnName(for property: String, of entity: String? = nil) -> String {
        column(for: property, of: entity)?.name ?? property
    }

    /// The column naming each row's entity, if the table has one.
    package var entityColumn: Column? {
        columns.first { if case .entity = $0.kind { true } else { false } }
    }

    /// Core Data's `Z_OPT`: the row's version, kept in the row.
    package var versionColumn: String? {
        columns.first { if case .version = $0.kind { true } else { false } }?.name
    }

    /// The column holding an attribute, or nil when the table stores none for it.
    package func column(forAttribute name: String) -> String? {
        columnName { if case .attribute(let attribute) = $0 { attribute.name == name } else { false } }
    }

    /// The column holding a to-one relationship stored on this side, or nil when the other side stores it.
    package func column(forToOne relationship: String) -> String? {
        columnName { if case .toOne(let to) = $0 { to.name == relationship } else { false } }
    }

    /// The column holding the order of the rows in the inverse ordered to-many of a to-one relationship.
    package func orderColumn(forToOne relationship: String) -> String? {
        columnName { if case .toOneOrder(let to) = $0 { to.name == relationship } else { false } }
    }

    /// The column holding the destination entity number of a to-one relationship into a tree.
    package func entityColumn(forToOne relationship: String) -> String? {
        columnName { if case .toOneEntity(let to) = $0 { to.name == relationship } else { false } }
    }

    private func columnName(where matches: (Column.Kind) -> Bool) -> String? {
        columns.first { matches($0.kind) }?.name
    }

    /// The entity column and the values it holds for `entity` and its sub-entities: the condition a
    /// fetch of `entity` adds; nil when every row of the table is one.
    package func entityRestriction(for entity: String) -> (column: String, values: [StoreValue])? {
        guard let kinds = entityFilter(for: entity), let column = entityColumn else { return nil }
        return (column.name, kinds.map(entityValue))
    }

    /// How the entity column stores an entity: its name, or Core Data's entity number.
    package func entityValue(_ entity: String) -> StoreValue {
        switch layout {
        case .plain: .text(entity)
        case .coreData: entityNumbers[entity].map { .integer(Int64($0)) } ?? .null
        }
    }

    /// The entity a stored entity-column value names.
    package func entityName(from value: StoreValue) -> String? {
        switch layout {
        case .plain: return value.stringValue
        case .coreData:
            guard let number = value.integerValue else { return nil }
            return members.first { entityNumbers[$0] == Int(number) }
        }
    }

    /// The stored form of a runtime value in a column.
    package func encode(_ value: StoreValue, in column: Column) -> StoreValue {
        guard case .attribute(let attribute) = column.kind, storedForms.covers(attribute) else { return value }
        return CoreDataValues.encode(value, for: attribute)
    }

    /// The stored form of a runtime value of a property (values of other names pass unchanged).
    package func encode(_ value: StoreValue, property: String) -> StoreValue {
        guard !storedForms.isEmpty, let column = column(for: property) else { return value }
        return encode(value, in: column)
    }

    /// How the column's stored values become the runtime's (Core Data's dates, UUIDs, Decimals and
    /// marked bytes), or nil where it keeps them in the runtime's form. Made once per column: a
    /// fetch converts every row's value with it, without reaching into the column's attribute again.
    package func readConversion(for column: Column) -> (@Sendable (StoreValue) -> StoreValue)? {
        guard case .attribute(let attribute) = column.kind, storedForms.covers(attribute) else { return nil }
        return { value in value.isNull ? value : (try? CoreDataValues.decode(value, for: attribute)) ?? value }
    }

    /// The runtime value of a stored column value.
    package func decode(_ value: StoreValue, in column: Column) -> StoreValue {
        readConversion(for: column)?(value) ?? value
    }

    /// The SQL a bound runtime value of `column` is written through: `?`, or a conversion into
    /// Core Data's form where SQLite's column affinity does not do it (see ``CoreDataValues``).
    package func boundExpression(for column: Column) -> String {
        guard case .attribute(let attribute) = column.kind, storedForms.covers(attribute) else { return "?" }
        switch attribute.type {
        case .date: return "(? - \(CoreDataValues.referenceDateOffset))"
        case .uuid: return "\(CoreDataValues.uuidFunction)(?)"
        case .binary where attribute.allowsExternalBinaryDataStorage: return "\(CoreDataValues.inlineFunction)(?)"
        default: return "?"
        }
    }
}

extension EntityTable {
    /// The key of a row about to be inserted, when the layout numbers rows itself: Core Data's
    /// `Z_MAX` on the root's `Z_PRIMARYKEY` row, advanced; nil where SQLite's rowid numbers them.
    func allocateKey(in db: Database) throws -> StoreValue? {
        guard layout == .coreData else { return nil }
        let root = entityValue(entity.name).databaseValue
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = ?", arguments: [root])
        return .integer(try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [root]) ?? 1)
    }

    /// The SQL reading a column at `alias` as the runtime's value (the inverse of ``boundExpression(for:)``).
    package func readExpression(for column: Column, alias: String) -> String {
        let sql = "\(alias).\(quoteIdentifier(column.name))"
        guard case .attribute(let attribute) = column.kind, storedForms.covers(attribute) else { return sql }
        switch attribute.type {
        case .date: return "(\(sql) + \(CoreDataValues.referenceDateOffset))"
        case .uuid: return "\(CoreDataValues.uuidTextFunction)(\(sql))"
        case .decimal: return "\(CoreDataValues.decimalTextFunction)(\(sql))"
        case .binary where attribute.allowsExternalBinaryDataStorage: return "\(CoreDataValues.inlineBytesFunction)(\(sql))"
        default: return sql
        }
    }
}

extension EntityTable.Column {
    /// The property (or, for the entity column, ``Model/entityColumn``) the runtime keys the column's values by.
    package var property: String? {
        switch kind {
        case .attribute(let attribute): attribute.name
        case .toOne(let relationship): relationship.name
        case .entity: Model.entityColumn
        case .primaryKey, .version, .toOneEntity, .toOneOrder, .toManyWithoutInverse: nil
        }
    }

    /// Whether the runtime reads and writes the column as a value of the object (attributes, to-ones, entity).
    package var holdsObjectValue: Bool { property != nil }
}
