import SeedModel

/// The join table of a many-to-many, ordered or inverse-less to-many relationship.
///
/// In the plain layout, named `<Entity>_<relationship>` after the side that owns it, with columns
/// `source` and `destination` holding primary keys, and `position` for an ordered relationship. In
/// Core Data's, a many-to-many's `Z_<n><REL>` table with its `Z_<n><INVERSE>` columns.
package struct JoinTable: Sendable, Equatable {
    /// The root entity of the side that owns the table.
    package let sourceEntity: String
    package let relationship: String
    /// The destination's root entity.
    package let destinationEntity: String
    /// The inverse relationship on the destination, if any.
    package let inverse: String?
    package let isOrdered: Bool
    package let name: String
    package let sourceColumn: String
    package let destinationColumn: String
    /// The column ordering the destinations of one source, for an ordered relationship.
    package let positionColumn: String?
    package let layout: StoreLayout

    /// The position of the first destination of an ordered relationship: 0 in the plain layout, 1 in Core Data's.
    package var firstPosition: Int { layout == .coreData ? 1 : 0 }

    /// Whether the position column orders the sources seen from the destination too (the plain
    /// layout's single `position`); Core Data keeps one order column per ordered side.
    package var positionOrdersBothSides: Bool { layout == .plain }

    init(entity: String, relationship: Relationship, destinationInverse: Relationship?) {
        sourceEntity = entity
        self.relationship = relationship.name
        destinationEntity = relationship.destination
        inverse = destinationInverse?.name
        isOrdered = relationship.isOrdered || (destinationInverse?.isOrdered ?? false)
        name = "\(entity)_\(relationship.name)"
        sourceColumn = "source"
        destinationColumn = "destination"
        positionColumn = isOrdered ? "position" : nil
        layout = .plain
    }

    /// One of Core Data's join tables; `relationship` is the source side's, both entities given as roots.
    init(coreData join: CoreDataSchema.JoinTable, sourceRoot: String, relationship: Relationship, destinationRoot: String) {
        sourceEntity = sourceRoot
        self.relationship = relationship.name
        destinationEntity = destinationRoot
        inverse = relationship.inverse
        name = join.name
        // The first key column points at the relationship's side (A), the second at the inverse's (B).
        sourceColumn = join.columns[0].name
        destinationColumn = join.columns[1].name
        positionColumn = join.columns.first { $0.kind == .toOneOrder(entity: join.relationship.entity, name: join.relationship.name) }?.name
        isOrdered = positionColumn != nil
        layout = .coreData
    }

    package var createStatement: String {
        let pk = quoteIdentifier(Model.primaryKeyColumn)
        var columns = [
            "\"source\" INTEGER NOT NULL REFERENCES \(quoteIdentifier(sourceEntity)) (\(pk))",
            "\"destination\" INTEGER NOT NULL REFERENCES \(quoteIdentifier(destinationEntity)) (\(pk))",
        ]
        if isOrdered { columns.append("\"position\" INTEGER NOT NULL DEFAULT 0") }
        columns.append("PRIMARY KEY (\"source\", \"destination\")")
        return "CREATE TABLE \(quoteIdentifier(name)) (\n  \(columns.joined(separator: ",\n  "))\n) WITHOUT ROWID"
    }

    package var indexStatements: [String] {
        ["CREATE INDEX \(quoteIdentifier(name + "_destination")) ON \(quoteIdentifier(name)) (\"destination\")"]
    }
}
