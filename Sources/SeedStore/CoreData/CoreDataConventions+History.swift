import Foundation
import SeedInstall

/// Core Data's persistent history, as a store that tracked it keeps it: `Z_PRIMARYKEY` rows
/// numbered from 16001 (`CHANGE`, `TRANSACTION`, `TRANSACTIONSTRING` in CoreDataPlus's
/// SampleModel2 stores) and a table for each, named `A` and the entity's name (`ACHANGE`,
/// `ATRANSACTION`, `ATRANSACTIONSTRING`). Its rows name the model's rows by entity number and
/// `Z_PK`, which a conversion keeps, so the tables travel as they are (`docs/store-format.md`).
extension CoreDataConventions {
    /// The first entity number of persistent history: the model's entities are numbered below it.
    package static let firstHistoryEntity = 16001

    /// The history rows of a store's `Z_PRIMARYKEY`, in number order; empty when it has none (or
    /// has no `Z_PRIMARYKEY`: the plain layout).
    package static func historyEntities(in store: StoreConnection) throws(StoreError) -> [HistoryEntity] {
        guard try store.tableExists("Z_PRIMARYKEY") else { return [] }
        var entities: [HistoryEntity] = []
        try store.forEachRow(
            "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT >= ? ORDER BY Z_ENT", [.integer(Int64(firstHistoryEntity))]
        ) { row in
            guard case .integer(let number) = row.value(0), case .text(let name) = row.value(1) else { return }
            let superEntity: Int64 = if case .integer(let value) = row.value(2) { value } else { 0 }
            let max: Int64 = if case .integer(let value) = row.value(3) { value } else { 0 }
            entities.append(HistoryEntity(number: Int(number), name: name, superEntity: Int(superEntity), max: max))
        }
        return entities
    }

    /// `historyEntities` as the plain layout's `coreDataLayout` keeps it: name → `number`, `super`, `max`.
    var historyJSON: JSONValue {
        .object(
            Dictionary(
                uniqueKeysWithValues: historyEntities.map { entity in
                    (
                        entity.name,
                        JSONValue.object([
                            "number": .integer(Int64(entity.number)), "super": .integer(Int64(entity.superEntity)),
                            "max": .integer(entity.max),
                        ])
                    )
                }))
    }

    /// The history entities `coreDataLayout` keeps, in number order; none when it keeps none.
    static func historyEntities(_ value: JSONValue?) -> [HistoryEntity] {
        guard let object = value?.objectValue else { return [] }
        return object.compactMap { name, entry -> HistoryEntity? in
            guard let fields = entry.objectValue, let number = fields["number"]?.integerValue else { return nil }
            return HistoryEntity(
                number: Int(number), name: name, superEntity: Int(fields["super"]?.integerValue ?? 0), max: fields["max"]?.integerValue ?? 0
            )
        }.sorted { $0.number < $1.number }
    }
}

extension CoreDataConventions.HistoryEntity {
    /// The table holding the entity's rows in the store: `A` and its name.
    package var tableName: String { "A" + name }
}
