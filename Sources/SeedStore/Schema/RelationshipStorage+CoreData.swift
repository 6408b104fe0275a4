import SeedModel

extension RelationshipStorage {
    /// Where Core Data keeps each relationship of the flattened `layout` model: every to-one in a
    /// column of its own side (both sides of a one-to-one), a to-many with a to-one inverse in that
    /// inverse's column, a many-to-many in its join table, and a to-many without inverse in a column
    /// of the destination's table.
    init(coreData schema: CoreDataSchema, layout: Model, model: Model, tables: [String: EntityTable]) {
        self.init()
        func root(_ entity: String) -> String {
            guard let start = model.entity(named: entity) else { return entity }
            return model.inheritanceChain(of: start).first?.name ?? entity
        }
        for join in schema.joinTables {
            let source = root(join.relationship.entity)
            let destination = root(join.inverse.entity)
            guard let relationship = layout.entity(named: source)?.relationship(named: join.relationship.name) else { continue }
            let table = JoinTable(coreData: join, sourceRoot: source, relationship: relationship, destinationRoot: destination)
            joinTables.append(table)
            places[Self.key(source, join.relationship.name)] = .joinTable(table)
            places[Self.key(destination, join.inverse.name)] = .inverse
        }
        for entity in layout.entities {
            for relationship in entity.relationships where !relationship.isTransient {
                let key = Self.key(entity.name, relationship.name)
                guard places[key] == nil else { continue }
                if !relationship.isToMany {
                    places[key] = .column
                } else if relationship.inverse == nil {
                    let column = tables[relationship.destination]?.columns.first { column in
                        if case .toManyWithoutInverse(let source, let to) = column.kind {
                            root(source) == entity.name && to.name == relationship.name
                        } else {
                            false
                        }
                    }
                    places[key] = column.map { .foreignColumn($0.name) } ?? .inverse
                } else {
                    places[key] = .inverse
                }
            }
        }
        for entity in layout.entities {
            for relationship in entity.relationships where !relationship.isTransient && !relationship.isToMany {
                guard let inverse = relationship.inverse,
                    let back = layout.entity(named: relationship.destination)?.relationship(named: inverse), !back.isToMany
                else { continue }
                mirrored.insert(Self.key(entity.name, relationship.name))
            }
        }
        joinTables.sort { $0.name < $1.name }
    }
}
