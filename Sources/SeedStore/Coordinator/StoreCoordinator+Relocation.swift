import Foundation
import SeedModel

extension StoreCoordinator {
    /// Core Data's "Save As": copies every object and the metadata of `store` into a new store of
    /// `type` at `url`, replaces the old store in the coordinator and returns the new one.
    ///
    /// The old file is never changed. SQLite to SQLite uses `VACUUM INTO`; other pairs copy rows
    /// table by table in batches, so two SQLite-backed files never pass through memory whole.
    /// The new store keeps the old one's configuration and options; its metadata keeps every key
    /// (store UUID included) except `StoreMetadata.Key.storeType`.
    /// See [migratePersistentStore(_:to:options:type:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/migratepersistentstore(_:to:options:type:)).
    /// - Throws: ``CoordinatorError`` when the store is not in this coordinator, is a custom type, or
    ///   the destination exists; `StoreError` when the copy fails (no file is left at `url`).
    @discardableResult
    public func migrateStore(_ store: any PersistentStore, to url: URL?, type: StoreType) throws -> any PersistentStore {
        lock.lock()
        defer { lock.unlock() }
        guard let index = storeList.firstIndex(where: { $0 === store }) else {
            throw CoordinatorError(
                .noStore, "\(store.storeDescription.displayName) is not added to this coordinator; add it before migrating it")
        }
        guard let source = store as? SQLiteStore else {
            throw CoordinatorError(
                .unsupported, "\(store.storeDescription.displayName) is a custom store type; only the built-in types can be migrated")
        }
        if type != .inMemory {
            guard let url else { throw CoordinatorError(.unsupported, "a \(type.rawValue) store needs a file URL") }
            guard !FileManager.default.fileExists(atPath: url.path) else {
                throw CoordinatorError(
                    .unsupported, "\(url.path) already exists; remove it or choose another location, so no store is overwritten")
            }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var description = source.storeDescription
        description.type = type
        description.url = type == .inMemory ? nil : url
        var metadata = metadata(for: source)
        metadata[StoreMetadata.Key.storeType] = .string(type.rawValue)

        let replacement: any PersistentStore
        if source.storeDescription.type == .sqlite, type == .sqlite, let url {
            try source.vacuum(into: url.path)
            do {
                var writable = description
                writable.isReadOnly = false
                let copy = try SQLiteStore(description: writable, model: model)
                _ = try copy.save(StoreChanges(metadata: metadata), beforeCommit: {})
                try copy.close()
                replacement = try makeStore(description)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw error
            }
        } else {
            var writable = description
            writable.isReadOnly = false
            let copy: SQLiteStore
            do {
                copy =
                    type == .binary || type == .xml
                    ? try AtomicStore(description: writable, model: model)
                    : try SQLiteStore(description: writable, model: model)
                try copy.copyContents(of: source, metadata: metadata.replacingManagedKeys(of: copy.metadata))
            } catch {
                if let url { try? FileManager.default.removeItem(at: url) }
                throw error
            }
            if description.isReadOnly, type != .inMemory {
                try copy.close()
                replacement = try makeStore(description)
            } else {
                replacement = copy
            }
        }
        storeList[index] = replacement
        didSaveMetadata(for: source)
        try? source.close()
        return replacement
    }
}

extension StoreMetadata {
    /// Every key from `self`, and the store type from `other` (the new store's own).
    func replacingManagedKeys(of other: StoreMetadata) -> StoreMetadata {
        var merged = self
        merged[Key.storeType] = other[Key.storeType]
        return merged
    }
}

extension StoreChanges {
    init(metadata: StoreMetadata) {
        self.init()
        self.metadata = metadata
    }
}
