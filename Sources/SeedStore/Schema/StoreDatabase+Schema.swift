package import GRDB
import SeedModel

extension StoreDatabase {
    /// The layout of the store, from its embedded model.
    package static func embeddedSchema(_ db: Database, path: String) throws -> StoreSchema {
        let (model, configuration) = try embeddedModel(db, path: path)
        return try StoreSchema(
            model: model, configuration: configuration, layout: layout(of: db), conventions: CoreDataConventions.read(from: db))
    }
}
