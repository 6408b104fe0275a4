/// Core Data's persistent history, as a store that tracked it keeps it: `Z_PRIMARYKEY` rows
/// numbered from 16001, and a table for each (SeedStore reads and converts them).
extension CoreDataConventions {
    /// One `Z_PRIMARYKEY` row of persistent history.
    package struct HistoryEntity: Sendable, Hashable {
        /// `Z_ENT`.
        package var number: Int
        /// `Z_NAME`.
        package var name: String
        /// `Z_SUPER`.
        package var superEntity: Int
        /// `Z_MAX`, the highest `Z_PK` issued, kept as it is (history pruned by Core Data leaves it
        /// above the table's highest key).
        package var max: Int64

        package init(number: Int, name: String, superEntity: Int, max: Int64) {
            self.number = number
            self.name = name
            self.superEntity = superEntity
            self.max = max
        }
    }
}
