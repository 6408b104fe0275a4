import SeedInstall

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
