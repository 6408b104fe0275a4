import SeedModel

/// The names of the columns a compiled predicate reads, in one place, so that a layout with other
/// names (Core Data's `Z`-prefixed ones) changes them here and nowhere else.
extension EntityTable {
    /// The column holding an attribute, or nil when the table stores none for it.
    func column(forAttribute name: String) -> String? {
        columns.first { if case .attribute(let attribute) = $0.kind { attribute.name == name } else { false } }?.name
    }

    /// The column holding a to-one relationship stored on this side, or nil when the other side stores it.
    func column(forToOne name: String) -> String? {
        columns.first { if case .toOne(let relationship) = $0.kind { relationship.name == name } else { false } }?.name
    }

    /// The column naming each row's entity in an inheritance tree.
    var entityColumnName: String { Model.entityColumn }

    /// The values of ``entityColumnName`` of the rows a fetch of `entity` reads, or nil when that is every row.
    func entityColumnValues(for entity: String) -> [StoreValue]? {
        entityFilter(for: entity)?.map(StoreValue.text)
    }
}

extension JoinTable {
    /// The column holding the primary key of the side that owns the join table.
    var sourceColumn: String { "source" }
    /// The column holding the primary key of the other side.
    var destinationColumn: String { "destination" }
}
