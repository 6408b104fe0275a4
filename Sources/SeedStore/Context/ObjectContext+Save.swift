import Foundation
import SeedModel

extension ObjectContext {
    /// What one save writes to one store, with the objects each change came from.
    struct StoreSave {
        let store: any PersistentStore
        var changes = StoreChanges()
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        var deleted: [ManagedObject] = []
    }

    /// Writes every change to the stores: new objects to the store whose configuration holds their
    /// entity, changes and deletions to the store each object came from, pending metadata too.
    /// A child context's save writes its changes into its ``parent`` instead, as unsaved changes there.
    ///
    /// Everything is checked first — read-only stores, relationships across stores, required values,
    /// value types and ranges, uniqueness constraints — and every problem is reported at once. The
    /// stores are then written each in a transaction, all committed together or none, holding the
    /// coordinator's lock. When another save changed the same objects first, ``mergePolicy``
    /// decides. Transient relationships are not written: they stay in the context as they are, across
    /// stores too. Afterwards ``didSaveNotification`` is posted and contexts that merge automatically
    /// receive the changes.
    /// - Throws: ``ContextError`` (validation, merge conflict), ``CoordinatorError`` (no store for an
    ///   entity, a relationship across stores), `StoreError` (a read-only store, SQLite failures).
    ///   A failed save changes nothing on disk and keeps the context's changes.
    public func save() throws {
        let changes: SavedChanges
        if let parent {
            changes = try saveIntoParent(parent)
        } else {
            changes = try coordinator.serialized { try saveToStores() }
        }
        // Transient relationships are not saved, but a save is what a rollback returns to.
        savedTransientLinks = transientLinks
        didSave(changes)
    }

    private func saveToStores() throws -> SavedChanges {
        var attempts = 0
        while true {
            let saves = try prepareSave()
            guard !saves.isEmpty else { return SavedChanges() }
            var outcomes = [SaveOutcome?](repeating: nil, count: saves.count)
            do {
                try commit(saves, from: 0, outcomes: &outcomes)
            } catch let conflict as SaveConflict {
                attempts += 1
                guard mergePolicy != .error, attempts < 5 else { throw mergeError(conflict) }
                try resolve(conflict)
                continue
            }
            return try finish(saves)
        }
    }

    /// Saves store `index` with the following stores committed inside its transaction, so any
    /// failure rolls every store back.
    private func commit(_ saves: [StoreSave], from index: Int, outcomes: inout [SaveOutcome?]) throws {
        guard index < saves.count else { return }
        outcomes[index] = try saves[index].store.save(saves[index].changes) {
            try commit(saves, from: index + 1, outcomes: &outcomes)
        }
        let keys = outcomes[index]!.insertedKeys
        for (object, key) in zip(saves[index].inserted, keys) {
            object.savedKey = key
        }
    }

    private func prepareSave() throws -> [StoreSave] {
        var saves: [StoreSave] = []
        func slot(_ store: any PersistentStore) -> Int {
            if let index = saves.firstIndex(where: { $0.store === store }) { return index }
            saves.append(StoreSave(store: store))
            return saves.count - 1
        }
        let changed = registered.values.filter { !$0.isInserted && $0.hasChanges }.sorted { $0.objectID.key < $1.objectID.key }
        var routes: [ObjectIdentifier: any PersistentStore] = [:]
        for object in insertedObjects {
            if let assigned = assignments[ObjectIdentifier(object)], coordinator.stores.contains(where: { $0 === assigned }) {
                routes[ObjectIdentifier(object)] = assigned
                continue
            }
            let candidates = coordinator.stores(for: object.entity.name)
            guard let store = candidates.first else {
                throw CoordinatorError(
                    .noStore,
                    "cannot save \(object.objectID): no store holds \(object.entity.name); add a store whose configuration includes it")
            }
            guard candidates.count == 1 else {
                throw CoordinatorError(
                    .noStore,
                    "cannot save \(object.objectID): \(object.entity.name) is in \(candidates.count) stores (\(candidates.map(\.storeDescription.displayName).joined(separator: ", "))); choose one with assign(_:to:)"
                )
            }
            routes[ObjectIdentifier(object)] = store
        }
        func store(of object: ManagedObject) -> (any PersistentStore)? {
            routes[ObjectIdentifier(object)] ?? object.store
        }
        for object in insertedObjects + changed {
            guard let store = store(of: object) else {
                throw ContextError(.objectNotFound, "\(object.objectID): its store was removed from the coordinator")
            }
            if store.isReadOnly {
                throw StoreError(
                    .refused, path: store.storeDescription.url?.path ?? store.storeDescription.displayName,
                    "the store \(store.storeDescription.displayName) was added read-only: cannot save changes to \(object.entity.name) (\(object.objectID)); save them to a writable store"
                )
            }
            try checkLinks(of: object, store: store, storeOf: store(of:))
        }
        try validate(insertedObjects + changed.filter { !$0.isDeleted }, deleted: changed.filter(\.isDeleted), storeOf: store(of:))

        for object in insertedObjects {
            let index = slot(routes[ObjectIdentifier(object)]!)
            saves[index].changes.inserts.append(StoreChanges.Insert(entity: object.entity.name, values: object.changes))
            saves[index].inserted.append(object)
        }
        for object in changed {
            let index = slot(object.store!)
            if object.isDeleted {
                saves[index].changes.deletes.append(
                    StoreChanges.Delete(entity: object.entity.name, key: object.objectID.key, expectedVersion: object.version))
                saves[index].deleted.append(object)
            } else if !object.changes.isEmpty || !object.toOneChanges.isEmpty || !object.toManyChanges.isEmpty {
                // A relationship-only change is an update too: its version is checked and bumped.
                saves[index].changes.updates.append(
                    StoreChanges.Update(
                        entity: object.entity.name, key: object.objectID.key, values: object.changes, expectedVersion: object.version,
                        force: object.forceWrite))
                saves[index].updated.append(object)
            } else if !saves[index].updated.contains(where: { $0 === object }) {
                saves[index].updated.append(object)
            }
        }
        for object in insertedObjects + changed where !object.isDeleted {
            let index = slot(store(of: object)!)
            func reference(_ target: ManagedObject) throws -> RowReference {
                if let position = saves[index].inserted.firstIndex(where: { $0 === target }) { return .inserted(position) }
                guard !target.objectID.isTemporary else {
                    throw ContextError(
                        .objectNotFound,
                        "\(object.objectID) links to \(target.objectID), which is new but not being saved (deleted or in another context)")
                }
                return .stored(target.objectID.key)
            }
            let source = try reference(object)
            for (name, destination) in object.toOneChanges.sorted(by: { $0.key < $1.key }) {
                saves[index].changes.links.append(
                    StoreChanges.Link(
                        entity: object.entity.name, source: source, relationship: name, destination: try destination.map(reference),
                        kind: .set))
            }
            for (name, list) in object.toManyChanges.sorted(by: { $0.key < $1.key }) {
                for change in list {
                    saves[index].changes.links.append(
                        StoreChanges.Link(
                            entity: object.entity.name, source: source, relationship: name, destination: try reference(change.object),
                            kind: change.added ? .add : .remove))
                }
            }
        }
        for store in coordinator.stores {
            if let metadata = coordinator.pendingMetadata(for: store) {
                saves[slot(store)].changes.metadata = metadata
            }
        }
        return saves.filter { !$0.changes.isEmpty }
    }

    /// Refuses a relationship whose destination lives in another store than its source.
    private func checkLinks(of object: ManagedObject, store: any PersistentStore, storeOf: (ManagedObject) -> (any PersistentStore)?) throws
    {
        let targets =
            object.toOneChanges.compactMap { name, target in target.map { (name, $0) } }
            + object.toManyChanges.flatMap { name, list in list.map { (name, $0.object) } }
        for (name, target) in targets {
            guard let other = storeOf(target), other !== store else { continue }
            throw CoordinatorError(
                .crossStoreRelationship,
                "cannot save \(object.entity.name).\(name): it links \(object.objectID) in \(store.storeDescription.displayName) to \(target.objectID) in \(other.storeDescription.displayName), and relationships cannot cross stores; link them with a fetched property on a key attribute instead"
            )
        }
    }

    /// After all stores committed: permanent IDs, fresh snapshots and versions, deleted objects forgotten.
    private func finish(_ saves: [StoreSave]) throws -> SavedChanges {
        var changes = SavedChanges()
        for save in saves {
            for object in save.inserted {
                registered[object.objectID] = nil
                let temporary = object.objectID
                object.objectID = ObjectID(
                    entity: object.entity.name, storeIdentifier: save.store.identifier, key: object.savedKey ?? .null)
                object.store = save.store
                object.isInserted = false
                registered[object.objectID] = object
                changes.inserted.insert(object.objectID)
                changes.permanentIDs[temporary] = object.objectID
            }
            for object in save.deleted {
                registered[object.objectID] = nil
                forgetTransientRelationships(of: object)
                object.fetchedCache.removeAll()
                changes.deleted.insert(object.objectID)
            }
            changes.updated.formUnion(save.updated.map(\.objectID))
            for object in save.inserted + save.updated {
                if let row = try save.store.fetch(StoreFetch(entity: object.entity.name, keys: [object.objectID.key])).first {
                    object.committed = row.storage
                    object.version = row.version
                }
                object.changes.removeAll()
                object.toOneChanges.removeAll()
                object.toManyChanges.removeAll()
                object.forceWrite = false
            }
            if save.changes.metadata != nil { coordinator.didSaveMetadata(for: save.store) }
        }
        insertedObjects.removeAll()
        assignments.removeAll()
        return changes
    }
}
