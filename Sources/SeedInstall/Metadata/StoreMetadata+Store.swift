import Foundation

extension StoreMetadata {
    /// Property-list keys of a Core Data store seedbuild built: the model the store is stamped for,
    /// as canonical JSON, read back like `seed_model` of the plain layout.
    package enum CoreDataKey {
        package static let model = "seedModel"
    }

    /// Reads the metadata of an open store in either layout (Core Data's embedded model left out).
    package static func read(from store: StoreConnection) throws(StoreError) -> StoreMetadata {
        if try StoreFile.layout(of: store) == .coreData {
            guard let row = try store.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA LIMIT 1").first, case .blob(let plist) = row[1] else {
                throw StoreError(.notASeedStore, path: store.path, "Z_METADATA holds no property list; the store is damaged")
            }
            let uuid: String? = if case .text(let text) = row[0] { text } else { nil }
            var metadata = try CoreDataMetadata.read(Data(plist), uuid: uuid, path: store.path)
            metadata[CoreDataKey.model] = nil
            return metadata
        }
        var values: [String: JSONValue] = [:]
        try store.forEachRow("SELECT key, value FROM \(tableName)") { row in
            guard case .text(let key) = row.value(0), case .text(let text) = row.value(1) else { return }
            values[key] = (try? JSONValue(jsonText: text)) ?? .string(text)
        }
        return StoreMetadata(values: values)
    }

    /// Replaces the metadata of an open, writable store, in its layout's place. In Core Data's layout
    /// the embedded model (``CoreDataKey/model``) stays as it was stamped unless these values set it.
    /// - Parameter frameworkVersion: Core Data's layout only: the framework version its tables follow;
    ///   nil keeps the stored one.
    package func write(to store: StoreConnection, frameworkVersion: Int? = nil) throws(StoreError) {
        guard try StoreFile.layout(of: store) == .coreData else {
            try store.execute(
                "CREATE TABLE IF NOT EXISTS \(Self.tableName) (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
            try store.execute("DELETE FROM \(Self.tableName)")
            for key in values.keys.sorted() {
                try store.execute("INSERT INTO \(Self.tableName) (key, value) VALUES (?, ?)", [.text(key), .text(values[key]!.jsonText)])
            }
            return
        }
        var metadata = self
        var old: [String: Any]?
        if case .blob(let plist)? = try store.rows("SELECT Z_PLIST FROM Z_METADATA LIMIT 1").first?.first {
            old = try? PropertyListSerialization.propertyList(from: Data(plist), format: nil) as? [String: Any]
        }
        if metadata[CoreDataKey.model] == nil, let model = old?[CoreDataKey.model] as? String {
            metadata[CoreDataKey.model] = .string(model)
        }
        let version = frameworkVersion ?? old?[CoreDataMetadata.Key.framework] as? Int ?? CoreDataMetadata.frameworkVersion
        let plist: Data
        do {
            plist = try CoreDataMetadata.propertyList(metadata, frameworkVersion: version)
        } catch {
            throw StoreError(.io, path: store.path, "cannot encode the metadata as a property list: \(error)")
        }
        try store.execute("DELETE FROM Z_METADATA")
        try store.execute(
            "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
            [.text(storeUUID ?? UUID().uuidString), .blob(Array(plist))])
    }

    /// Replaces the plain layout's embedded model (`seed_model`): the configuration's canonical JSON.
    package static func writeEmbeddedModel(_ json: String, configuration: String, to store: StoreConnection) throws(StoreError) {
        try store.execute(
            "CREATE TABLE IF NOT EXISTS \(modelTableName) (configuration TEXT NOT NULL PRIMARY KEY, model TEXT NOT NULL) WITHOUT ROWID")
        try store.execute("DELETE FROM \(modelTableName)")
        try store.execute("INSERT INTO \(modelTableName) (configuration, model) VALUES (?, ?)", [.text(configuration), .text(json)])
    }
}
