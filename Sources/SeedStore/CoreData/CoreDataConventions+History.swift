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

    /// Index name → `CREATE INDEX` of the store's indexes on tables named as join tables (``joinTableIndexes``).
    package static func joinTableIndexes(in store: StoreConnection) throws(StoreError) -> [String: String] {
        var indexes: [String: String] = [:]
        try store.forEachRow(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name GLOB 'Z_[0-9]*[A-Z]*'"
        ) { row in
            if case .text(let name) = row.value(0), case .text(let sql) = row.value(1) { indexes[name] = sql }
        }
        return indexes
    }
}

extension CoreDataConventions.HistoryEntity {
    /// The table holding the entity's rows in the store: `A` and its name.
    package var tableName: String { "A" + name }
}

extension CoreDataConventions {
    /// The plain layout's metadata key holding the conventions of a store converted from Core Data's
    /// layout; its presence also says that the store keeps Core Data's stored forms
    /// (`docs/store-format.md`).
    package static let metadataKey = StoreMetadata.Key.coreDataLayout

    /// The conventions as the plain layout's metadata keeps them.
    package var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "frameworkVersion": .integer(Int64(frameworkVersion)),
            "entityNumbers": .object(entityNumbers.mapValues { .integer(Int64($0)) }),
        ]
        if !joinTableNames.isEmpty { object["joinTables"] = .object(joinTableNames.mapValues { .string($0.rawValue) }) }
        if !joinTableIndexes.isEmpty { object["joinTableIndexes"] = .object(joinTableIndexes.mapValues { .string($0) }) }
        if !historyEntities.isEmpty { object["historyEntities"] = historyJSON }
        return .object(object)
    }

    /// The conventions a plain store's metadata remembers, or nil when it was not converted from Core Data's layout.
    package init?(_ value: JSONValue?) {
        guard let object = value?.objectValue else { return nil }
        self.init(
            // Stores converted before history was kept apart list its entities here too.
            entityNumbers: (object["entityNumbers"]?.objectValue ?? [:]).compactMapValues { $0.integerValue.map(Int.init) }.filter {
                $0.value < Self.firstHistoryEntity
            },
            frameworkVersion: object["frameworkVersion"]?.integerValue.map(Int.init) ?? CoreDataMetadata.frameworkVersion,
            joinTableNames: (object["joinTables"]?.objectValue ?? [:]).compactMapValues {
                $0.stringValue.flatMap(JoinTableObject.init(rawValue:))
            })
        joinTableIndexes = (object["joinTableIndexes"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        historyEntities = Self.historyEntities(object["historyEntities"])
    }
}
