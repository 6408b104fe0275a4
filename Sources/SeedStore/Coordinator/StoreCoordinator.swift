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
/// Not thread-safe: use a coordinator and its contexts from one thread or task at a time.
public final class StoreCoordinator {
    public let model: Model
    public internal(set) var stores: [any PersistentStore] = []
    private var unsavedMetadata: [ObjectIdentifier: StoreMetadata] = [:]
    /// Each entity with its inherited properties listed as its own, for objects and their validation.
    let resolvedEntities: [String: Entity]

    public init(model: Model) {
        self.model = model
        resolvedEntities = Dictionary(model.entities.map { ($0.name, model.resolved($0)) }, uniquingKeysWith: { first, _ in first })
    }

    deinit {
        for store in stores { try? store.close() }
    }

    /// Opens a store described by `description` and adds it.
    ///
    /// An existing store is checked against the configuration's version hashes: compatible → opened;
    /// incompatible with both migrate options → migrated with an inferred lightweight migration (a
    /// read-only store into a new file in ``StoreDescription/migrationCachesDirectory``, never the
    /// original); otherwise refused.
    /// - Throws: ``CoordinatorError`` for an unknown or overlapping configuration or an incompatible store;
    ///   ``MigrationRefusal`` when migration was asked for but cannot be inferred; ``StoreError`` for file problems.
    @discardableResult
    public func addStore(_ description: StoreDescription) throws -> any PersistentStore {
        let entities = try checkConfiguration(description.configurationName, name: description.displayName)
        let store = try open(description, entities: entities)
        stores.append(store)
        return store
    }

    /// Adds a store of a custom type (the equivalent of registering an `NSIncrementalStore`).
    /// - Throws: ``CoordinatorError`` when its configuration overlaps another store's.
    @discardableResult
    public func addStore(_ store: any PersistentStore) throws -> any PersistentStore {
        _ = try checkConfiguration(store.storeDescription.configurationName, name: store.storeDescription.displayName)
        stores.append(store)
        return store
    }

    /// Closes a store and removes it; its objects can no longer be fetched or saved.
    public func removeStore(_ store: any PersistentStore) throws {
        guard let index = stores.firstIndex(where: { $0 === store }) else { return }
        stores.remove(at: index)
        unsavedMetadata[ObjectIdentifier(store)] = nil
        try store.close()
    }

    /// The store added with this file URL.
    public func store(for url: URL) -> (any PersistentStore)? {
        let path = url.standardizedFileURL.path
        return stores.first { $0.storeDescription.url?.standardizedFileURL.path == path }
    }

    /// The stores holding an entity, limited to `affectedStores` when given.
    public func stores(for entity: String, among affectedStores: [any PersistentStore]? = nil) -> [any PersistentStore] {
        (affectedStores ?? stores).filter { candidate in
            candidate.entityNames.contains(entity) && stores.contains { $0 === candidate }
        }
    }

    /// A store's metadata, including changes set with ``setMetadata(_:for:)`` and not yet saved.
    public func metadata(for store: any PersistentStore) -> StoreMetadata {
        unsavedMetadata[ObjectIdentifier(store)] ?? store.metadata
    }

    /// Sets a store's metadata; it is written on the next save of a context. The store-managed keys
    /// (``StoreMetadata/managedKeys``) keep their values.
    public func setMetadata(_ metadata: StoreMetadata, for store: any PersistentStore) {
        unsavedMetadata[ObjectIdentifier(store)] = metadata
    }

    func pendingMetadata(for store: any PersistentStore) -> StoreMetadata? {
        unsavedMetadata[ObjectIdentifier(store)]
    }

    func didSaveMetadata(for store: any PersistentStore) {
        unsavedMetadata[ObjectIdentifier(store)] = nil
    }

    /// The entities of a configuration, refusing an unknown one or one overlapping a store's.
    private func checkConfiguration(_ name: String, name storeName: String) throws -> Set<String> {
        guard let configuration = model.configuration(named: name) else {
            throw CoordinatorError(
                .unknownConfiguration,
                "cannot add \(storeName): the model has no configuration \"\(name)\"; it has \(model.configurationNames.joined(separator: ", "))")
        }
        let entities = Set(configuration.entities)
        for store in stores {
            let other = store.storeDescription.configurationName
            if name == SeedModel.Configuration.defaultName || other == SeedModel.Configuration.defaultName {
                throw CoordinatorError(
                    .overlappingConfiguration,
                    "cannot add \(storeName) with configuration \(name): \(store.storeDescription.displayName) is already added with \(other), and the Default configuration (no configuration name) holds every entity, so it allows no other store; give each store a named configuration")
            }
            if name == other {
                throw CoordinatorError(
                    .overlappingConfiguration,
                    "cannot add \(storeName) with configuration \(name): \(store.storeDescription.displayName) is already added with it, and two stores of one configuration would receive the same objects; give each store its own configuration")
            }
        }
        return entities
    }
}
