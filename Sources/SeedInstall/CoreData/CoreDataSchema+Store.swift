import Foundation

extension CoreDataSchema {
    /// Fills `Z_PRIMARYKEY`: one row per entity of the whole model, in entity-number order, with
    /// `Z_MAX`, the highest `Z_PK` issued, on each root's row (as Core Data keeps it); then the
    /// persistent-history rows the conventions keep, as the store had them.
    package func writePrimaryKeys(to store: StoreConnection) throws(StoreError) {
        try store.execute("DELETE FROM Z_PRIMARYKEY")
        for row in primaryKeyRows {
            var highest: Int64 = 0
            if row.superEntity == 0, let table = tables.first(where: { $0.root == row.name }),
                case .integer(let value)? = try store.rows("SELECT coalesce(max(Z_PK), 0) FROM \(table.name)").first?.first
            {
                highest = value
            }
            try store.execute(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                [.integer(Int64(row.entity)), .text(row.name), .integer(Int64(row.superEntity)), .integer(highest)])
        }
        for entity in conventions.historyEntities {
            try store.execute(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                [.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superEntity)), .integer(entity.max)])
        }
    }
}
