import Foundation
import SeedModel

extension StoreCoordinator {
    /// Opens a built-in store, migrating it first when it is incompatible and the options allow.
    func open(_ description: StoreDescription, entities: Set<String>) throws -> any PersistentStore {
        guard let url = description.url, description.type != .inMemory, FileManager.default.fileExists(atPath: url.path) else {
            if description.type != .inMemory, description.url == nil {
                throw CoordinatorError(
                    .unsupported, "a \(description.type.rawValue) store needs a file URL; use .inMemory for a store without a file")
            }
            return try makeStore(description)
        }
        let stored: StoreMetadata
        let embedded: Model?
        if description.type == .sqlite, !description.isReadOnly {
            // Other connections may be writing a writable store: read it with locks and its write-ahead log.
            // Only through SQLite: closing any other descriptor of the file would drop this process's
            // locks on it (POSIX), and another process could then delete the log under its connections.
            stored = try StoreMetadata.read(at: url, in: StoreDatabase.openShared(url.path, busyTimeout: description.sqliteBusyTimeout))
            embedded =
                (try? Migrator.embeddedModel(
                    of: url.path, in: StoreDatabase.openShared(url.path, busyTimeout: description.sqliteBusyTimeout)))?.model
        } else {
            stored = try StoreMetadata.read(at: url)
            embedded = description.type == .sqlite ? (try? Migrator.embeddedModel(of: url.path))?.model : nil
        }
        let differences = stored.hashDifferences(from: model, embeddedModel: embedded)
        if differences.isEmpty { return try makeStore(description) }
        let differing = differences.map(\.entity)
        let reasons = differences.map(\.description).joined(separator: ", ")
        guard description.shouldMigrateStoreAutomatically, description.shouldInferMappingAutomatically else {
            let onlyInStore = differences.allSatisfy { $0.reasons == ["in the store but not in the model"] }
            let advice =
                onlyInStore
                ? "The store was stamped for a model with these entities too (the app's merged model): add the models that define them to this coordinator's model"
                : "Add it with shouldMigrateStoreAutomatically and shouldInferMappingAutomatically to migrate it, or open it with the model it was built with"
            throw CoordinatorError(
                .incompatibleStore,
                "\(url.path) is not compatible with model \(model.name) (Core Data compares every entity of the coordinator's model, whatever the configuration): the version hashes of \(reasons) differ. \(advice)",
                differingEntities: differing)
        }
        guard description.type == .sqlite else {
            throw CoordinatorError(
                .unsupported,
                "\(url.path) is a \(description.type.rawValue) store with a different model (\(reasons)); only SQLite stores migrate automatically. Open it with its own model and migrateStore(_:to:type:) it to SQLite first"
            )
        }
        var migrated = description
        if description.isReadOnly {
            guard let caches = description.migrationCachesDirectory else {
                throw CoordinatorError(
                    .unsupported,
                    "\(url.path) is read-only and needs migrating (\(reasons)); set migrationCachesDirectory to a folder where the migrated copy can be written"
                )
            }
            let expected = model.entityVersionHashes
            let combined = (Data(base64Encoded: model.versionChecksum) ?? Data()).hexString.prefix(16)
            let output = caches.appendingPathComponent("\(url.deletingPathExtension().lastPathComponent)-\(combined).sqlite")
            if !Self.isMigratedCopy(output, of: stored, hashes: expected) {
                try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true)
                _ = try Migrator().migrate(url.path, to: model, output: output.path)
            }
            migrated.url = output
        } else {
            let mode = (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o644
            _ = try Migrator().migrate(url.path, to: model, output: url.path, outputMode: mode_t(mode))
        }
        return try makeStore(migrated)
    }

    func makeStore(_ description: StoreDescription) throws -> any PersistentStore {
        switch description.type {
        case .sqlite, .inMemory: try SQLiteStore(description: description, model: model)
        case .binary, .xml: try AtomicStore(description: description, model: model)
        }
    }

    /// Whether a cached migrated copy was made from this very store and fits the model.
    private static func isMigratedCopy(_ url: URL, of source: StoreMetadata, hashes: [String: Data]) -> Bool {
        guard FileManager.default.fileExists(atPath: url.path), let copy = try? StoreMetadata.read(at: url) else { return false }
        let origin = copy["migratedFrom"]?.objectValue?["contentDigest"]?.stringValue
        return copy.versionHashes == hashes && origin != nil && origin == source.contentDigest
    }

}
