import SeedModel

/// The names of the columns a compiled predicate reads, through the layout seam
/// (`EntityTable+Layout.swift`), so they are right in both layouts.
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
    var entityColumnName: String { entityColumn?.name ?? Model.entityColumn }

    /// The values of ``entityColumnName`` of the rows a fetch of `entity` reads, or nil when that is every row.
    func entityColumnValues(for entity: String) -> [StoreValue]? {
        entityFilter(for: entity)?.map(entityValue)
    }
}
