import Foundation
package import GRDB
import SeedModel

extension StoreFile {
    /// The layout of an open store: Core Data's when it has `Z_METADATA` and no `seed_metadata`.
    package static func layout(of db: Database) throws -> StoreLayout {
        try !db.tableExists(StoreMetadata.tableName) && db.tableExists("Z_METADATA") ? .coreData : .plain
    }

    /// The layout of a store file, opened immutable.
    package static func layout(at path: String) throws -> StoreLayout {
        let queue = try openReadOnly(path)
        defer { try? queue.close() }
        return try queue.read { db in try layout(of: db) }
    }

    /// Entity name → Core Data's entity number, from a store's `Z_PRIMARYKEY` (empty in the plain layout).
    package static func entityNumbers(in db: Database) throws -> [String: Int] {
        guard try db.tableExists("Z_PRIMARYKEY") else { return [:] }
        var numbers: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY") {
            if let name = row[0] as String?, let number = row[1] as Int? { numbers[name] = number }
        }
        return numbers
    }
}

extension StoreMetadata {
    /// Property-list keys of a Core Data store seedbuild built: the configuration's model as
    /// canonical JSON, read back like `seed_model` of the plain layout.
    package enum CoreDataKey {
        package static let model = "seedModel"
    }

    /// Reads the metadata of an open store in either layout.
    package static func read(from db: Database) throws -> StoreMetadata {
        if try StoreFile.layout(of: db) == .coreData {
            guard let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA LIMIT 1"), let plist = row["Z_PLIST"] as Data? else {
                throw StoreError(.notASeedStore, path: db.description, "Z_METADATA holds no property list; the store is damaged")
            }
            var metadata = try CoreDataMetadata.read(plist, uuid: row["Z_UUID"], path: db.description)
            metadata[CoreDataKey.model] = nil
            return metadata
        }
        var values: [String: JSONValue] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM \(tableName)") {
            let key: String = row["key"]
            let text: String = row["value"]
            values[key] = (try? JSONValue(jsonText: text)) ?? .string(text)
        }
        return StoreMetadata(values: values)
    }

    /// Stamps a newly laid-out store: this metadata and the configuration's model, in `seed_metadata`,
    /// `seed_model` and the header (plain layout), or in `Z_METADATA` and `Z_PRIMARYKEY` (Core Data's).
    package func stamp(_ db: Database, schema: StoreSchema) throws {
        guard let coreData = schema.coreData else {
            let json = String(decoding: try schema.model.canonicalJSON(configuration: schema.configuration), as: UTF8.self)
            var stamped = self
            stamped[CoreDataConventions.metadataKey] = schema.coreDataConventions?.jsonValue
            try stamped.write(to: db)
            try db.execute(sql: "CREATE TABLE \(Self.modelTableName) (configuration TEXT NOT NULL PRIMARY KEY, model TEXT NOT NULL) WITHOUT ROWID")
            try db.execute(sql: "INSERT INTO \(Self.modelTableName) (configuration, model) VALUES (?, ?)", arguments: [schema.configuration, json])
            try db.execute(sql: "PRAGMA application_id = \(Self.applicationID); PRAGMA user_version = \(Self.storeFormatVersion)")
            return
        }
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY")
        for row in coreData.primaryKeyRows {
            // Z_MAX, the highest Z_PK issued, is kept on the root's row.
            var highest: Int64 = 0
            if row.superEntity == 0, let table = schema.tables.first(where: { $0.entity.name == row.name }) {
                highest = try Int64.fetchOne(db, sql: "SELECT coalesce(max(Z_PK), 0) FROM \(table.name)") ?? 0
            }
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                arguments: [row.entity, row.name, row.superEntity, highest])
        }
        // The whole model the store is stamped for: Core Data numbers entities over all of it.
        var stamped = self
        stamped[CoreDataKey.model] = .string(String(decoding: schema.wholeModel.canonicalJSON(), as: UTF8.self))
        // Z_METADATA says which framework's layout the tables follow; the plain layout's record of it goes.
        stamped[CoreDataConventions.metadataKey] = nil
        try stamped.write(to: db, frameworkVersion: coreData.conventions.frameworkVersion)
    }

    /// Replaces the metadata of an open, writable store, in its layout's place.
    /// - Parameter frameworkVersion: Core Data's layout only: the framework version its tables follow;
    ///   nil keeps the stored one.
    package func write(to db: Database, frameworkVersion: Int? = nil) throws {
        if try StoreFile.layout(of: db) == .coreData {
            var metadata = self
            let old = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA LIMIT 1")
                .flatMap { try? PropertyListSerialization.propertyList(from: $0, format: nil) as? [String: Any] }
            // The embedded model is not among the values read back; it stays as it was stamped.
            if metadata[CoreDataKey.model] == nil, let model = old?[CoreDataKey.model] as? String {
                metadata[CoreDataKey.model] = .string(model)
            }
            let version = frameworkVersion ?? old?[CoreDataMetadata.Key.framework] as? Int ?? CoreDataMetadata.frameworkVersion
            let plist = try CoreDataMetadata.propertyList(metadata, frameworkVersion: version)
            try db.execute(sql: "DELETE FROM Z_METADATA")
            try db.execute(
                sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                arguments: [storeUUID ?? UUID().uuidString, plist])
            return
        }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.tableName) (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        try db.execute(sql: "DELETE FROM \(Self.tableName)")
        for key in values.keys.sorted() {
            try db.execute(sql: "INSERT INTO \(Self.tableName) (key, value) VALUES (?, ?)", arguments: [key, values[key]!.jsonText])
        }
    }
}
