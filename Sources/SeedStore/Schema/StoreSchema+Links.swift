import SeedModel

/// Where the build's link files put the links of a many-to-many or inverse-less to-many relationship.
package enum LinkStorage: Sendable {
    /// A join table; `ownerIsSource` when the relationship's own objects are its source column.
    /// `orderColumns` names each order column by the relationship whose list it orders: the
    /// relationship fed (`Entity.relationship`) or its inverse.
    case joinTable(JoinTable, ownerIsSource: Bool, orderColumns: [(column: String, entity: String, relationship: String)])
    /// Core Data's to-many without inverse: a column of the destination's table holds the owner's key.
    case destinationColumn(EntityTable, column: String)
}

extension StoreSchema {
    /// Where the links of `entity.relationship` are kept, or nil when a column of a to-one keeps
    /// them (or the relationship is transient or unknown).
    package func linkStorage(of relationship: String, in entity: String) -> LinkStorage? {
        let root = rootName(of: entity)
        switch storage.place(of: relationship, in: root) {
        case .joinTable(let join):
            return .joinTable(join, ownerIsSource: true, orderColumns: orderColumns(of: join))
        case .foreignColumn(let column):
            guard
                let destination = model.entity(named: entity).flatMap({ model.allRelationships(of: $0).first { $0.name == relationship } })?
                    .destination,
                let table = table(for: destination)
            else { return nil }
            return .destinationColumn(table, column: column)
        case .inverse, .column:
            guard let source = model.entity(named: entity).flatMap({ model.allRelationships(of: $0).first { $0.name == relationship } }),
                let inverse = source.inverse, case .joinTable(let join) = storage.place(of: inverse, in: rootName(of: source.destination))
            else { return nil }
            return .joinTable(join, ownerIsSource: false, orderColumns: orderColumns(of: join))
        }
    }

    private func rootName(of entity: String) -> String {
        model.entity(named: entity).flatMap { model.inheritanceChain(of: $0).first?.name } ?? entity
    }

    /// The join table's order columns, each with the relationship whose list it orders: Core Data
    /// keeps one per ordered side; the plain layout's one `position` orders the source's list.
    private func orderColumns(of join: JoinTable) -> [(column: String, entity: String, relationship: String)] {
        guard let coreData, let layout = coreData.joinTables.first(where: { $0.name == join.name }) else {
            return join.positionColumn.map { [($0, join.sourceEntity, join.relationship)] } ?? []
        }
        return layout.columns.compactMap { column in
            if case .toOneOrder(let entity, let name) = column.kind { (column.name, entity, name) } else { nil }
        }
    }
}
