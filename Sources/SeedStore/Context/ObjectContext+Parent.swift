import Foundation
import SeedModel

extension ObjectContext {
    /// The values of an object as this context's source holds them: the parent's current values
    /// (its unsaved changes included) for a child context, the stored row otherwise. Nil when gone.
    func snapshot(of id: ObjectID) throws -> StoreRow? {
        if let parent {
            return parent.performAndWait {
                guard let object = try? parent.object(with: id), !object.isDeleted else { return nil }
                return object.snapshot
            }
        }
        guard let store = coordinator.stores.first(where: { $0.identifier == id.storeIdentifier }) else { return nil }
        return try coordinator.serialized { try store.fetch(StoreFetch(entity: id.entity, keys: [id.key])).first }
    }

    /// A child's fetch: the parent fetches (seeing its own unsaved changes), the child registers
    /// its instances of the objects found.
    func fetchThroughParent(_ parent: ObjectContext, _ request: FetchRequest) throws -> [ManagedObject] {
        let found = try parent.performAndWait { try parent.fetch(request).map { ($0.objectID, $0.snapshot) } }
        return found.map { registered[$0.0] ?? registerFromParent($0.1, id: $0.0) }.filter { !$0.isDeleted }
    }

    /// A child's view of a relationship: the parent's, with the parent's unsaved changes.
    func relatedThroughParent(_ parent: ObjectContext, of object: ManagedObject, relationship: Relationship) throws -> [ManagedObject] {
        let id = object.objectID
        let found = try parent.performAndWait {
            let counterpart = try parent.object(with: id)
            let destinations =
                relationship.isToMany
                ? try counterpart.objects(forRelationship: relationship.name)
                : [try counterpart.object(forRelationship: relationship.name)].compactMap { $0 }
            return destinations.map { ($0.objectID, $0.snapshot) }
        }
        return found.map { registered[$0.0] ?? registerFromParent($0.1, id: $0.0) }
    }

    /// The child's instance of an object the parent holds.
    func registerFromParent(_ row: StoreRow, id: ObjectID) -> ManagedObject {
        if let object = registered[id] { return object }
        let entity = sharedEntity(of: row)
        let store = id.storeIdentifier.flatMap { identifier in coordinator.stores.first { $0.identifier == identifier } }
        let object = ManagedObject(entity: entity, objectID: id, values: row.storage, version: row.version, store: store, context: self)
        registered[id] = object
        return object
    }

    /// A child's save: its changes become the parent's unsaved changes, checked against the model
    /// first; the parent's save writes them to the stores.
    func saveIntoParent(_ parent: ObjectContext) throws -> SavedChanges {
        let changed = registered.values.filter { !$0.isInserted && $0.hasChanges }.sorted { $0.objectID.key < $1.objectID.key }
        let inserted = insertedObjects
        guard !inserted.isEmpty || !changed.isEmpty else { return SavedChanges() }
        try validate(inserted + changed.filter { !$0.isDeleted }, deleted: changed.filter(\.isDeleted), storeOf: { _ in nil })
        var saved = SavedChanges()
        let counterparts: [ObjectIdentifier: ObjectID] = try parent.performAndWait {
            var made: [ObjectIdentifier: ManagedObject] = [:]
            for object in inserted {
                let counterpart = try parent.insert(entity: object.entity.name)
                counterpart.changes = object.changes
                made[ObjectIdentifier(object)] = counterpart
            }
            func counterpart(_ object: ManagedObject) throws -> ManagedObject {
                try made[ObjectIdentifier(object)] ?? parent.object(with: object.objectID)
            }
            for object in changed {
                let target = try counterpart(object)
                if object.isDeleted {
                    parent.delete(target)
                } else {
                    for (key, value) in object.changes { target[key] = value }
                }
            }
            for object in inserted + changed where !object.isDeleted {
                let target = try counterpart(object)
                for (name, destination) in object.toOneChanges {
                    try target.setObject(try destination.map(counterpart), forRelationship: name)
                }
                for (name, list) in object.toManyChanges {
                    for change in list {
                        let destination = try counterpart(change.object)
                        if change.added {
                            try target.addObject(destination, toRelationship: name)
                        } else {
                            try target.removeObject(destination, fromRelationship: name)
                        }
                    }
                }
            }
            return made.mapValues(\.objectID)
        }
        for object in inserted {
            registered[object.objectID] = nil
            object.objectID = counterparts[ObjectIdentifier(object)]!
            object.isInserted = false
            registered[object.objectID] = object
            saved.inserted.insert(object.objectID)
        }
        for object in changed where object.isDeleted {
            registered[object.objectID] = nil
            forgetTransientRelationships(of: object)
            saved.deleted.insert(object.objectID)
        }
        for object in inserted + changed where !object.isDeleted {
            object.committed = object.currentValues
            object.changes.removeAll()
            object.toOneChanges.removeAll()
            object.toManyChanges.removeAll()
            if !inserted.contains(where: { $0 === object }) { saved.updated.insert(object.objectID) }
        }
        insertedObjects.removeAll()
        assignments.removeAll()
        return saved
    }
}

extension ManagedObject {
    /// The object's current persistent values as a row, for a child context to read.
    var snapshot: StoreRow {
        StoreRow(entity: sharedEntity.name, key: objectID.key, storage: currentValues, version: version)
    }
}
