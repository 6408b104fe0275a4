import Foundation
import SeedModel

/// A scratch pad of objects over a coordinator: fetch, insert, change, delete, then save or roll back.
///
/// Mirrors [NSManagedObjectContext](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext).
/// Each object is registered once per context, so fetching it again gives the same instance with
/// its unsaved changes.
///
/// A context is bound to a queue (``ConcurrencyType``): a private one of its own, or the main
/// queue. From other tasks and threads, use it only inside ``perform(_:)-(()->Void)``,
/// ``performAndWait(_:)`` or the `async` ``perform(_:)-(()->T)``; it is `Sendable` for that, its
/// objects are not — pass ``ObjectID``s between contexts. A context with a ``parent`` saves into
/// the parent instead of the stores. See `docs/runtime.md`.
///
/// Safe to share as Core Data's context is: its state is used only on `queue` (``perform(_:)-(()->Void)``,
/// ``performAndWait(_:)``), `children` under the coordinator's lock — a contract callers keep, as with
/// `NSManagedObjectContext`, not one the compiler checks.
public final class ObjectContext: @unchecked Sendable {
    /// The coordinator whose stores the context reads and, through its parents, saves to.
    public let coordinator: StoreCoordinator
    /// The context this one saves into and reads through; nil when it saves to the stores.
    public let parent: ObjectContext?
    /// The queue the context is bound to: its own serial queue, or the main queue.
    public let concurrencyType: ConcurrencyType
    /// The serial queue the context's work runs on.
    let queue: DispatchQueue
    /// How a save resolves objects another context saved first, and how merged changes meet unsaved ones.
    public var mergePolicy: MergePolicy = .error
    /// Merges what sibling contexts and the parent save into this context, on its queue
    /// (Core Data's `automaticallyMergesChangesFromParent`). See ``mergeChanges(from:)``.
    public var automaticallyMergesChangesFromParent = false
    /// Child contexts, for merging this context's saves into them (guarded by the coordinator's lock).
    var children: [WeakContext] = []

    var registered: [ObjectID: ManagedObject] = [:]
    /// New objects, in insertion order.
    var insertedObjects: [ManagedObject] = []
    private var nextTemporaryKey: Int64 = 1
    /// Stores chosen for new objects whose entity more than one store holds.
    var assignments: [ObjectIdentifier: any PersistentStore] = [:]
    /// The destinations of transient relationships, which no store keeps (see `ObjectContext+Transient.swift`).
    var transientLinks: [TransientLink: [ManagedObject]] = [:]
    /// ``transientLinks`` as of the last save, which ``rollback()`` returns to.
    var savedTransientLinks: [TransientLink: [ManagedObject]] = [:]

    /// A context that saves to the coordinator's stores.
    /// - Parameters:
    ///   - coordinator: The coordinator whose stores the context fetches from and saves to.
    ///   - concurrencyType: Its own serial queue (the default), or the main queue.
    public init(coordinator: StoreCoordinator, concurrencyType: ConcurrencyType = .privateQueue) {
        self.coordinator = coordinator
        parent = nil
        self.concurrencyType = concurrencyType
        queue = Self.makeQueue(concurrencyType)
        coordinator.serialized {
            // Contexts come and go (one per task, say): the list keeps only the living ones.
            coordinator.topLevelContexts.removeAll { $0.context == nil }
            coordinator.topLevelContexts.append(WeakContext(self))
        }
    }

    /// A child context: it fetches through `parent` (seeing its unsaved changes) and its ``save()``
    /// pushes the changes into `parent`, whose own save writes them to the stores.
    public init(parent: ObjectContext, concurrencyType: ConcurrencyType = .privateQueue) {
        coordinator = parent.coordinator
        self.parent = parent
        self.concurrencyType = concurrencyType
        queue = Self.makeQueue(concurrencyType)
        coordinator.serialized { parent.children.append(WeakContext(self)) }
    }

    /// Whether any object has unsaved changes or a store has unsaved metadata.
    public var hasChanges: Bool {
        !insertedObjects.isEmpty || registered.values.contains { $0.hasChanges }
            || coordinator.stores.contains { coordinator.pendingMetadata(for: $0) != nil }
    }

    /// A new object of `entity`, with the model's default values; stored by the next save.
    /// - Throws: ``ContextError`` when the model has no such entity, or it is abstract.
    public func insert(entity name: String) throws -> ManagedObject {
        let shared = try sharedEntity(named: name)
        let entity = shared.entity
        guard !entity.isAbstract else {
            throw ContextError(.unknownName, "\(name) is abstract; insert one of its sub-entities")
        }
        let id = ObjectID(entity: name, storeIdentifier: nil, key: .integer(nextTemporaryKey))
        nextTemporaryKey += 1
        let object = ManagedObject(entity: shared, objectID: id, values: .empty, version: 0, store: nil, context: self)
        object.isInserted = true
        for attribute in entity.attributes where !attribute.isTransient {
            if let text = attribute.effectiveDefaultValue,
                case .success(let value) = FieldConverter.convertDefault(text, as: attribute.type)
            {
                object.changes[attribute.name] = StoreValue(value, text: text)
            }
        }
        registered[id] = object
        insertedObjects.append(object)
        return object
    }

    /// Chooses the store a new object is saved to, when its entity is in more than one store
    /// (Core Data's `assign(_:to:)`).
    /// - Throws: ``ContextError`` when the object is not new; ``CoordinatorError`` when the store does not hold its entity.
    public func assign(_ object: ManagedObject, to store: any PersistentStore) throws {
        guard object.isInserted, object.context === self else {
            throw ContextError(
                .objectNotFound, "\(object.objectID) is not a new object of this context; only new objects can be assigned to a store")
        }
        guard coordinator.stores(for: object.entity.name).contains(where: { $0 === store }) else {
            throw CoordinatorError(
                .noStore,
                "\(store.storeDescription.displayName) does not hold \(object.entity.name); assign it to a store whose configuration includes it"
            )
        }
        assignments[ObjectIdentifier(object)] = store
    }

    /// Marks an object for deletion at the next save (a new one is simply forgotten). Its transient
    /// relationships follow their delete rules at once, in this context (see `ObjectContext+Transient.swift`).
    public func delete(_ object: ManagedObject) {
        guard object.context === self, !object.isDeleted else { return }
        if object.isInserted {
            insertedObjects.removeAll { $0 === object }
            assignments[ObjectIdentifier(object)] = nil
            registered[object.objectID] = nil
            object.isInserted = false
            object.isDeleted = true
            // Nothing may still point at an object that will never be saved.
            for other in registered.values {
                for (name, target) in other.toOneChanges where target === object { other.toOneChanges[name] = .some(nil) }
                for (name, list) in other.toManyChanges { other.toManyChanges[name] = list.filter { $0.object !== object } }
            }
            unlinkTransientRelationships(of: object)
            return
        }
        object.isDeleted = true
        applyTransientDeleteRules(to: object)
    }

    /// Discards every unsaved change: new objects are forgotten, deleted ones restored, changed ones
    /// reverted, transient relationships returned to what they were at the last save.
    public func rollback() {
        for object in insertedObjects {
            registered[object.objectID] = nil
            object.isInserted = false
        }
        insertedObjects.removeAll()
        assignments.removeAll()
        for object in registered.values { object.discardChanges() }
        transientLinks = savedTransientLinks
        for store in coordinator.stores { coordinator.didSaveMetadata(for: store) }
    }

    /// Re-reads an object's stored values and clears its fetched-property cache. With
    /// `mergeChanges` its unsaved changes and transient relationships are kept; without, they are discarded.
    /// - Throws: ``ContextError`` when the object was deleted from its store.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
        object.fetchedCache.removeAll()
        guard !object.isInserted else { return }
        guard let row = try snapshot(of: object.objectID) else {
            throw ContextError(
                .objectNotFound,
                "\(object.objectID) is no longer in \(parent == nil ? "its store" : "the parent context"); another save deleted it")
        }
        object.committed = row.storage
        object.version = row.version
        if !mergeChanges {
            object.discardChanges()
            forgetTransientRelationships(of: object)
        }
    }

    /// The registered object with this ID, or the one read from its store.
    public func object(with id: ObjectID) throws -> ManagedObject {
        if let object = registered[id] { return object }
        if parent != nil {
            guard let row = try snapshot(of: id) else {
                throw ContextError(.objectNotFound, "\(id) is not in the parent context or its stores")
            }
            return registerFromParent(row, id: id)
        }
        guard let store = coordinator.stores.first(where: { $0.identifier == id.storeIdentifier }),
            let row = try coordinator.serialized({ try store.fetch(StoreFetch(entity: id.entity, keys: [id.key])).first })
        else { throw ContextError(.objectNotFound, "\(id) is not in any store of this coordinator") }
        return register(row, store: store)
    }

    func entity(named name: String) throws -> Entity {
        try sharedEntity(named: name).entity
    }

    func sharedEntity(named name: String) throws -> SharedEntity {
        guard let entity = coordinator.resolvedEntities[name] else {
            throw ContextError(
                .unknownName,
                "the model \(coordinator.model.name) has no entity \"\(name)\"; it has \(coordinator.model.entities.map(\.name).joined(separator: ", "))"
            )
        }
        return entity
    }

    /// The context's instance for a stored row: the registered one, or a new one.
    func register(_ row: StoreRow, store: any PersistentStore, storeIdentifier: String? = nil, entity known: SharedEntity? = nil)
        -> ManagedObject
    {
        let id = ObjectID(entity: row.entity, storeIdentifier: storeIdentifier ?? store.identifier, key: row.key)
        // One look-up of the ID, through the dictionary's in-place access, whether or not it is registered.
        return Self.existingOrNew(&registered[id]) {
            ManagedObject(
                entity: sharedEntity(of: row, known: known), objectID: id, values: row.storage, version: row.version, store: store,
                context: self)
        }
    }

    private static func existingOrNew(_ slot: inout ManagedObject?, _ make: () -> ManagedObject) -> ManagedObject {
        if let existing = slot { return existing }
        let made = make()
        slot = made
        return made
    }

    /// The entity of a row: `known` when it is the row's (a fetch of a parent entity returns its
    /// sub-entities' rows too, each its own entity), else the coordinator's.
    func sharedEntity(of row: StoreRow, known: SharedEntity? = nil) -> SharedEntity {
        if let known, known.name == row.entity { return known }
        return coordinator.resolvedEntities[row.entity] ?? SharedEntity(Entity(name: row.entity))
    }
}

extension ManagedObject {
    func discardChanges() {
        changes.removeAll()
        unknownKeys.removeAll()
        toOneChanges.removeAll()
        toManyChanges.removeAll()
        isDeleted = false
    }
}

extension StoreValue {
    /// A converted default value (see ``FieldConverter/convertDefault(_:as:)``).
    init(_ value: FieldValue, text: String) {
        switch value {
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .fieldText: self = .text(text)
        case .text(let converted): self = .text(converted)
        case .blob(let bytes): self = .blob(Data(bytes))
        }
    }
}
