import Foundation
package import GRDB
import SeedModel

extension StoreDatabase {
    /// The model a store was built with (its `seed_model` table) and its configuration.
    package static func embeddedModel(_ db: Database, path: String) throws -> (model: Model, configuration: String) {
        if try layout(of: db) == .coreData { return try coreDataModel(db, path: path) }
        guard let row = try Row.fetchOne(db, sql: "SELECT configuration, model FROM \(StoreMetadata.modelTableName) LIMIT 1") else {
            throw StoreError(
                .notASeedStore, path: path, "the store has no embedded model (\(StoreMetadata.modelTableName)); rebuild it with seedbuild")
        }
        let configuration: String = row[0]
        let json: String = row[1]
        return (try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: path, version: "embedded")), configuration)
    }

    /// The model of a store in Core Data's layout: the one seedbuild embedded in its metadata, else
    /// the one Core Data cached in `Z_MODELCACHE` (every entity, in the Default configuration).
    private static func coreDataModel(_ db: Database, path: String) throws -> (model: Model, configuration: String) {
        if let row = try Row.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA LIMIT 1"), let plist = row[0] as Data?,
            let list = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
            let json = list[StoreMetadata.CoreDataKey.model] as? String
        {
            let configuration = list[StoreMetadata.Key.configuration] as? String ?? SeedModel.Configuration.defaultName
            return (try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: path, version: "embedded")), configuration)
        }
        guard try db.tableExists("Z_MODELCACHE") else { throw CoreDataStoreFile.noCachedModel(path, table: false) }
        guard let blob = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE"), !blob.isEmpty else {
            throw CoreDataStoreFile.noCachedModel(path, table: true)
        }
        let model = try CoreDataStoreFile.model(
            fromCache: blob, name: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent, path: path)
        return (model, SeedModel.Configuration.defaultName)
    }
}
