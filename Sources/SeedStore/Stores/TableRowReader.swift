import SeedModel

/// Turns the values selected from an entity's table into ``StoreRow``s.
///
/// Worked out once per fetch, not per row: each column's property, which column names the row's
/// entity, which columns hold values in Core Data's forms, and the layout the rows share (one per
/// entity of a tree whose entities each have a column for one name, as Core Data's layout gives them).
struct TableRowReader {
    let table: EntityTable
    /// The columns holding object values, in the order a fetch selects them.
    let columns: [EntityTable.Column]
    private let entityOffset: Int?
    /// The columns whose stored values are converted to the runtime's, each with its conversion
    /// (made once: reaching a column's attribute per row copied the whole struct every time).
    private let conversions: [(offset: Int, convert: @Sendable (StoreValue) -> StoreValue)]
    /// The entity each stored entity-column value of a tree names.
    private let entityNames: [StoreValue: String]
    /// The layout every row shares, when no two columns have one name.
    private let sharedLayout: RowLayout?
    private var layouts: [String: RowLayout] = [:]

    init(table: EntityTable) {
        let columns = table.columns.filter(\.holdsObjectValue)
        let names = columns.map { $0.property ?? "" }
        self.table = table
        self.columns = columns
        entityOffset = table.entityColumn.flatMap { entityColumn in columns.firstIndex { $0.name == entityColumn.name } }
        conversions = columns.indices.compactMap { offset in table.readConversion(for: columns[offset]).map { (offset, $0) } }
        entityNames =
            table.isTree ? Dictionary(table.members.map { (table.entityValue($0), $0) }, uniquingKeysWith: { first, _ in first }) : [:]
        sharedLayout = Set(names).count == names.count ? RowLayout(names: names) : nil
    }

    /// Converts one row's values, read into `values` from `start` in the order of ``columns``, from
    /// their stored forms in place, and gives the row's entity and layout.
    /// - Parameter entity: The entity fetched; a tree's row names its own, which may be a sub-entity.
    mutating func finishRow(_ values: inout [StoreValue], from start: Int, entity fetched: String) -> (entity: String, layout: RowLayout) {
        var entity = fetched
        if let entityOffset {
            if table.isTree { entity = entityNames[values[start + entityOffset]] ?? fetched }
            values[start + entityOffset] = .text(entity)
        }
        for (offset, convert) in conversions {
            values[start + offset] = convert(values[start + offset])
        }
        return (entity, layout(of: entity))
    }

    /// The layout of a row of `entity`: where two columns have one name, the one the entity (or an ancestor) declares.
    private mutating func layout(of entity: String) -> RowLayout {
        if let sharedLayout { return sharedLayout }
        if let layout = layouts[entity] { return layout }
        let names = columns.map { $0.property ?? "" }
        var indexes: [String: Int] = [:]
        for (offset, name) in names.enumerated() where indexes[name] == nil {
            let chosen = table.column(for: name, of: entity)?.name
            indexes[name] = columns.firstIndex { $0.property == name && $0.name == chosen } ?? offset
        }
        let layout = RowLayout(names: names, indexes: indexes)
        layouts[entity] = layout
        return layout
    }
}
