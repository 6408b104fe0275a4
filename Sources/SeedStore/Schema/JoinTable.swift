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
    /// The column ordering the destinations of one source, when the relationship (or, in the plain
    /// layout, either side) is ordered.
    package let positionColumn: String?
    /// The column ordering the sources of one destination, when the inverse is ordered: Core Data's
    /// other `Z_FOK_` column; in the plain layout the single `position`, which orders both sides, or
    /// `inversePosition` where a store converted from Core Data's keeps both orders.
    package let inversePositionColumn: String?
    package let layout: StoreLayout

    /// The position of the first destination of an ordered relationship: 0 in the plain layout, 1 in Core Data's.
    package var firstPosition: Int { layout == .coreData ? 1 : 0 }

    /// - Parameter keepsBothOrders: give a many-to-many ordered on both sides an `inversePosition`
    ///   column (stores converted from Core Data's layout); else one `position` orders both sides.
    init(entity: String, relationship: Relationship, destinationInverse: Relationship?, keepsBothOrders: Bool = false) {
        sourceEntity = entity
        self.relationship = relationship.name
        destinationEntity = relationship.destination
        inverse = destinationInverse?.name
        isOrdered = relationship.isOrdered || (destinationInverse?.isOrdered ?? false)
        name = "\(entity)_\(relationship.name)"
        sourceColumn = "source"
        destinationColumn = "destination"
        positionColumn = isOrdered ? "position" : nil
        let bothOrdered = relationship.isOrdered && destinationInverse?.isOrdered == true
        inversePositionColumn = keepsBothOrders && bothOrdered ? "inversePosition" : positionColumn
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
        inversePositionColumn = join.columns.first { $0.kind == .toOneOrder(entity: join.inverse.entity, name: join.inverse.name) }?.name
        isOrdered = positionColumn != nil || inversePositionColumn != nil
        layout = .coreData
    }

    package var createStatement: String {
        let pk = quoteIdentifier(Model.primaryKeyColumn)
        var columns = [
            "\"source\" INTEGER NOT NULL REFERENCES \(quoteIdentifier(sourceEntity)) (\(pk))",
            "\"destination\" INTEGER NOT NULL REFERENCES \(quoteIdentifier(destinationEntity)) (\(pk))",
        ]
        for column in [positionColumn, inversePositionColumn == positionColumn ? nil : inversePositionColumn].compactMap({ $0 }) {
            columns.append("\(quoteIdentifier(column)) INTEGER NOT NULL DEFAULT 0")
        }
        columns.append("PRIMARY KEY (\"source\", \"destination\")")
        return "CREATE TABLE \(quoteIdentifier(name)) (\n  \(columns.joined(separator: ",\n  "))\n) WITHOUT ROWID"
    }

    package var indexStatements: [String] {
        ["CREATE INDEX \(quoteIdentifier(name + "_destination")) ON \(quoteIdentifier(name)) (\"destination\")"]
    }
}
