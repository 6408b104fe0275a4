import SeedModel

/// The join table of a many-to-many, ordered or inverse-less to-many relationship.
///
/// Named `<Entity>_<relationship>` after the side that owns it, with columns `source` and
/// `destination` holding primary keys, and `position` for an ordered relationship.
public struct JoinTable: Sendable, Equatable {
    public let sourceEntity: String
    public let relationship: String
    public let destinationEntity: String
    /// The inverse relationship on the destination, if any.
    public let inverse: String?
    public let isOrdered: Bool

    init(entity: String, relationship: Relationship, destinationInverse: Relationship?) {
        sourceEntity = entity
        self.relationship = relationship.name
        destinationEntity = relationship.destination
        inverse = destinationInverse?.name
        isOrdered = relationship.isOrdered || (destinationInverse?.isOrdered ?? false)
    }

    public var name: String { "\(sourceEntity)_\(relationship)" }

    public var createStatement: String {
        let pk = quoteIdentifier(Model.primaryKeyColumn)
        var columns = [
            "\"source\" INTEGER NOT NULL REFERENCES \(quoteIdentifier(sourceEntity)) (\(pk))",
            "\"destination\" INTEGER NOT NULL REFERENCES \(quoteIdentifier(destinationEntity)) (\(pk))",
        ]
        if isOrdered { columns.append("\"position\" INTEGER NOT NULL DEFAULT 0") }
        columns.append("PRIMARY KEY (\"source\", \"destination\")")
        return "CREATE TABLE \(quoteIdentifier(name)) (\n  \(columns.joined(separator: ",\n  "))\n) WITHOUT ROWID"
    }

    public var indexStatements: [String] {
        ["CREATE INDEX \(quoteIdentifier(name + "_destination")) ON \(quoteIdentifier(name)) (\"destination\")"]
    }
}
