import SeedModel

/// Decides where each relationship is stored: a column on the to-one side, or a join table.
///
/// A pair of inverse relationships is stored once:
/// - one side to-one and the other an unordered to-many (or to-one, or absent): an integer column on
///   the to-one side (for a to-one pair, on the side whose `Entity.relationship` sorts first);
/// - both to-many, an ordered to-many, or a to-many without inverse: a join table.
struct RelationshipStorage: Sendable {
    enum Place: Sendable, Equatable {
        /// An integer column on this entity's table, named as the relationship.
        case column
        /// Stored by the inverse's column or join table; nothing on this side.
        case inverse
        /// A join table; this side is its `source` column.
        case joinTable(JoinTable)
        /// Core Data's to-many without inverse: this column of the destination's table holds the source's key.
        case foreignColumn(String)
    }

    var places: [String: Place] = [:]
    var joinTables: [JoinTable] = []
    /// Entities some stored column or join table points at by primary key.
    var referencedEntities = Set<String>()
    /// One-to-one relationships whose both sides keep a column (Core Data's layout): a link sets both.
    var mirrored = Set<String>()

    init() {}

    /// - Parameter keepsBothOrders: a many-to-many ordered on both sides keeps each side's order
    ///   (stores converted from Core Data's layout); else one position orders both.
    init(model: Model, keepsBothOrders: Bool = false) {
        for entity in model.entities {
            for relationship in entity.relationships where !relationship.isTransient {
                let key = Self.key(entity.name, relationship.name)
                guard places[key] == nil else { continue }
                let inverse = relationship.inverse.flatMap { model.entity(named: relationship.destination)?.relationship(named: $0) }
                let inverseKey = relationship.inverse.map { Self.key(relationship.destination, $0) }
                let needsJoin =
                    (relationship.isToMany && (inverse == nil || inverse!.isToMany || relationship.isOrdered))
                    || (inverse.map { $0.isToMany && $0.isOrdered } ?? false)
                if needsJoin {
                    // Name the join table after the side that sorts first, so the layout does not depend on visit order.
                    let thisFirst = inverseKey.map { key <= $0 } ?? true
                    let table: JoinTable
                    if thisFirst || inverse == nil {
                        table = JoinTable(
                            entity: entity.name, relationship: relationship, destinationInverse: inverse, keepsBothOrders: keepsBothOrders)
                        places[key] = .joinTable(table)
                        if let inverseKey { places[inverseKey] = .inverse }
                    } else {
                        table = JoinTable(
                            entity: relationship.destination, relationship: inverse!, destinationInverse: relationship,
                            keepsBothOrders: keepsBothOrders)
                        places[inverseKey!] = .joinTable(table)
                        places[key] = .inverse
                    }
                    joinTables.append(table)
                    referencedEntities.formUnion([entity.name, relationship.destination])
                } else if !relationship.isToMany {
                    // To-one: a column here, unless the inverse is also to-one and sorts first.
                    if let inverse, !inverse.isToMany, let inverseKey, inverseKey < key {
                        places[inverseKey] = .column
                        places[key] = .inverse
                        referencedEntities.insert(entity.name)
                    } else {
                        places[key] = .column
                        if let inverseKey { places[inverseKey] = .inverse }
                        referencedEntities.insert(relationship.destination)
                    }
                } else {
                    places[key] = .inverse
                    if let inverseKey { places[inverseKey] = .column }
                    referencedEntities.insert(entity.name)
                }
            }
        }
        joinTables.sort { $0.name < $1.name }
    }

    func isMirrored(_ relationship: String, in entity: String) -> Bool {
        mirrored.contains(Self.key(entity, relationship))
    }

    func place(of relationship: String, in entity: String) -> Place {
        places[Self.key(entity, relationship)] ?? .inverse
    }

    static func key(_ entity: String, _ relationship: String) -> String {
        "\(entity)\u{0}\(relationship)"
    }
}
