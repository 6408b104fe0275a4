import Foundation
import SeedModel

/// Several stores under one merged model, each entity routed to the store whose configuration holds it.
///
/// Mirrors [NSPersistentStoreCoordinator](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator):
/// ```swift
/// let coordinator = StoreCoordinator(model: try Model.merged([seedModel, userModel]))
/// try coordinator.addStore(StoreDescription(type: .sqlite, url: seedURL, configuration: "PostCodesConf", isReadOnly: true))
/// try coordinator.addStore(StoreDescription(type: .sqlite, url: userURL, configuration: "UserConf"))
/// let context = ObjectContext(coordinator: coordinator)
/// ```
/// An entity in two named configurations lives in both stores: fetches read both and merge the
/// results; a new object of it is saved where ``ObjectContext/assign(_:to:)`` says.
/// A coordinator may be used from any task or thread (it is `Sendable`): it serialises its own work
/// and every store access of its contexts with one lock, as Core Data's coordinator does. Its
/// contexts are not shared that way; see ``ObjectContext`` and `docs/runtime.md`.
///
/// Safe to share: every mutable property and every store's connection is used only under `lock` (`serialized(_:)`);
/// the rest are `let`s.
public final class StoreCoordinator: @unchecked Sendable {
    /// The merged model every store's configuration comes from.
    public let model: Model
    /// The stores added, in order.
    public var stores: [any PersistentStore] { serialized { storeList } }
    /// Guarded by ``lock``, as every mutable property here.
    var storeList: [any PersistentStore] = []
    private var unsavedMetadata: [ObjectIdentifier: StoreMetadata] = [:]
    /// Serialises the coordinator's state and its stores' connections; recursive, so a context's
    /// save can fetch and validate under the lock it holds.
    let lock = NSRecursiveLock()
    /// The contexts made on this coordinator without a parent, for merging saves between them.
    var topLevelContexts: [WeakContext] = []
    /// Each entity with its inherited properties listed as its own, for objects and their validation.
    let resolvedEntities: [String: SharedEntity]

    /// A coordinator over `model`, with no store yet (add them with ``addStore(_:)-(StoreDescription)``).
    public init(model: Model) {
        self.model = model
        resolvedEntities = Dictionary(
            model.entities.map { ($0.name, SharedEntity(model.resolved($0))) }, uniquingKeysWith: { first, _ in first })
    }

    deinit {
        for store in storeList { try? store.close() }
    }

    /// Runs `body` holding the coordinator's lock.
    func serialized<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Opens a store described by `description` and adds it.
    ///
    /// An existing store is checked against the configuration's version hashes: compatible → opened;
    /// incompatible with both migrate options → migrated with an inferred lightweight migration (a
    /// read-only store into a new file in ``StoreDescription/migrationCachesDirectory``, never the
    /// original); otherwise refused.
    /// - Throws: ``CoordinatorError`` for an unknown or overlapping configuration or an incompatible store;
    ///   `MigrationRefusal` when migration was asked for but cannot be inferred; `StoreError` for file problems.
    @discardableResult
    public func addStore(_ description: StoreDescription) throws -> any PersistentStore {
        lock.lock()
        defer { lock.unlock() }
        let entities = try checkConfiguration(description.configurationName, name: description.displayName)
        let store = try open(description, entities: entities)
        storeList.append(store)
        return store
    }

    /// Adds a store of a custom type (the equivalent of registering an `NSIncrementalStore`).
    /// - Throws: ``CoordinatorError`` when its configuration overlaps another store's.
    @discardableResult
    public func addStore(_ store: any PersistentStore) throws -> any PersistentStore {
        lock.lock()
        defer { lock.unlock() }
        _ = try checkConfiguration(store.storeDescription.configurationName, name: store.storeDescription.displayName)
        storeList.append(store)
        return store
    }

    /// Closes a store and removes it; its objects can no longer be fetched or saved.
    public func removeStore(_ store: any PersistentStore) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let index = storeList.firstIndex(where: { $0 === store }) else { return }
        storeList.remove(at: index)
        unsavedMetadata[ObjectIdentifier(store)] = nil
        try store.close()
    }

    /// The store added with this file URL.
    public func store(for url: URL) -> (any PersistentStore)? {
        lock.lock()
        defer { lock.unlock() }
        let path = url.standardizedFileURL.path
        return storeList.first { $0.storeDescription.url?.standardizedFileURL.path == path }
    }

    /// The stores holding an entity, limited to `affectedStores` when given.
    public func stores(for entity: String, among affectedStores: [any PersistentStore]? = nil) -> [any PersistentStore] {
        lock.lock()
        defer { lock.unlock() }
        return (affectedStores ?? storeList).filter { candidate in
            candidate.entityNames.contains(entity) && storeList.contains { $0 === candidate }
        }
    }

    /// A store's metadata, including changes set with ``setMetadata(_:for:)`` and not yet saved.
    public func metadata(for store: any PersistentStore) -> StoreMetadata {
        lock.lock()
        defer { lock.unlock() }
        return unsavedMetadata[ObjectIdentifier(store)] ?? store.metadata
    }

    /// Sets a store's metadata; it is written on the next save of a context. The store-managed keys
    /// (`StoreMetadata.managedKeys`) keep their values.
    public func setMetadata(_ metadata: StoreMetadata, for store: any PersistentStore) {
        lock.lock()
        defer { lock.unlock() }
        unsavedMetadata[ObjectIdentifier(store)] = metadata
    }

    func pendingMetadata(for store: any PersistentStore) -> StoreMetadata? {
        lock.lock()
        defer { lock.unlock() }
        return unsavedMetadata[ObjectIdentifier(store)]
    }

    func didSaveMetadata(for store: any PersistentStore) {
        lock.lock()
        defer { lock.unlock() }
        unsavedMetadata[ObjectIdentifier(store)] = nil
    }

    /// The entities of a configuration, refusing an unknown one or one overlapping a store's.
    private func checkConfiguration(_ name: String, name storeName: String) throws -> Set<String> {
        guard let configuration = model.configuration(named: name) else {
            throw CoordinatorError(
                .unknownConfiguration,
                "cannot add \(storeName): the model has no configuration \"\(name)\"; it has \(model.configurationNames.joined(separator: ", "))"
            )
        }
        let entities = Set(configuration.entities)
        for store in storeList {
            let other = store.storeDescription.configurationName
            if name == SeedModel.Configuration.defaultName || other == SeedModel.Configuration.defaultName {
                throw CoordinatorError(
                    .overlappingConfiguration,
                    "cannot add \(storeName) with configuration \(name): \(store.storeDescription.displayName) is already added with \(other), and the Default configuration (no configuration name) holds every entity, so it allows no other store; give each store a named configuration"
                )
            }
            if name == other {
                throw CoordinatorError(
                    .overlappingConfiguration,
                    "cannot add \(storeName) with configuration \(name): \(store.storeDescription.displayName) is already added with it, and two stores of one configuration would receive the same objects; give each store its own configuration"
                )
            }
        }
        return entities
    }
}
