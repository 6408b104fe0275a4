import Foundation
package import GRDB
import SeedModel

extension StoreMetadata {
    /// Stamps a newly laid-out store: this metadata and the configuration's model, in `seed_metadata`,
    /// `seed_model` and the header (plain layout), or in `Z_METADATA` and `Z_PRIMARYKEY` (Core Data's).
    package func stamp(_ db: Database, schema: StoreSchema) throws {
        let store = db.storeConnection()
        guard let coreData = schema.coreData else {
            let json = String(decoding: try schema.model.canonicalJSON(configuration: schema.configuration), as: UTF8.self)
            var stamped = self
            stamped[CoreDataConventions.metadataKey] = schema.coreDataConventions?.jsonValue
            try stamped.write(to: store)
            try Self.writeEmbeddedModel(json, configuration: schema.configuration, to: store)
            try store.execute("PRAGMA application_id = \(Self.applicationID); PRAGMA user_version = \(Self.storeFormatVersion)")
            return
        }
        try coreData.writePrimaryKeys(to: store)
        // The whole model the store is stamped for: Core Data numbers entities over all of it.
        var stamped = self
        stamped[CoreDataKey.model] = .string(String(decoding: schema.wholeModel.canonicalJSON(), as: UTF8.self))
        // Z_METADATA says which framework's layout the tables follow; the plain layout's record of it goes.
        stamped[CoreDataConventions.metadataKey] = nil
        try stamped.write(to: store, frameworkVersion: coreData.conventions.frameworkVersion)
    }
}
