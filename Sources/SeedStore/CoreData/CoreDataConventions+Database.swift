import Foundation
package import GRDB
import SeedModel

extension CoreDataConventions {
    /// The conventions of an open store: read from `Z_PRIMARYKEY` (persistent history's rows apart),
    /// `Z_METADATA` and the names of its join tables in Core Data's layout, from the metadata of a
    /// plain store converted from it, nil for any other plain store.
    package static func read(from db: Database) throws -> CoreDataConventions? {
        guard try StoreDatabase.layout(of: db) == .coreData else {
            guard try db.tableExists(StoreMetadata.tableName),
                let text = try String.fetchOne(
                    db, sql: "SELECT value FROM \(StoreMetadata.tableName) WHERE key = ?", arguments: [metadataKey])
            else { return nil }
            return CoreDataConventions(try? JSONValue(jsonText: text))
        }
        // Persistent history's entities are numbered apart from the model's (from 16001).
        let numbers = try StoreDatabase.entityNumbers(in: db).filter { $0.value < firstHistoryEntity }
        var conventions = CoreDataConventions(
            entityNumbers: numbers, joinTableNames: try CoreDataConventions.joinTableNames(in: db.storeConnection()))
        conventions.joinTableIndexes = try CoreDataConventions.joinTableIndexes(in: db.storeConnection())
        conventions.historyEntities = try CoreDataConventions.historyEntities(in: db.storeConnection())
        if let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA LIMIT 1"),
            let list = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
            let version = list[CoreDataMetadata.Key.framework] as? Int
        {
            conventions.frameworkVersion = version
        }
        return conventions
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
