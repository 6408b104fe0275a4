import Foundation

/// What one save changed, by object ID: sent to other contexts so they can merge it
/// (the content of Core Data's `NSManagedObjectContextDidSave` notification).
public struct SavedChanges: Sendable, Hashable {
    /// The objects the save inserted, by their permanent IDs.
    public var inserted: Set<ObjectID> = []
    /// The objects the save updated.
    public var updated: Set<ObjectID> = []
    /// The objects the save deleted.
    public var deleted: Set<ObjectID> = []
    /// For a save to the stores: each new object's temporary ID and the permanent one it was given,
    /// so child contexts holding the temporary ID follow it.
    public var permanentIDs: [ObjectID: ObjectID] = [:]

    /// No changes.
    public init() {}

    /// Whether the save inserted, updated and deleted nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ObjectContext {
    /// Posted on the saving thread after every save that changed something; `object` is the
    /// context, ``savedChangesKey`` in `userInfo` holds the ``SavedChanges``.
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: background, queue: nil) { note in
    ///     guard let changes = note.userInfo?[ObjectContext.savedChangesKey] as? SavedChanges else { return }
    ///     main.perform { try? main.mergeChanges(from: changes) }
    /// }
    /// ```
    public static let didSaveNotification = Notification.Name("SeedStore.ObjectContext.didSave")
    /// The key of the ``SavedChanges`` in a ``didSaveNotification``'s `userInfo`.
    public static let savedChangesKey = "changes"

    /// Brings another context's save into this one
    /// ([mergeChanges(fromContextDidSave:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/mergechanges(fromcontextdidsave:))).
    ///
    /// Registered objects the save updated are re-read (from the parent for a child context);
    /// ones it deleted are forgotten; temporary IDs follow their permanent ones. Where an object
    /// has unsaved changes here, ``mergePolicy`` decides, as at a save: `storeTrumps` drops this
    /// context's changes to properties the save changed, `objectTrumps` and `overwrite` keep them,
    /// `rollback` drops them all, and `error` leaves the object as it was so that this context's
    /// next save reports the conflict. Call it on the context's queue.
    /// - Throws: `StoreError` when a store cannot be read; objects merged before stay merged.
    public func mergeChanges(from changes: SavedChanges) throws {
        for (temporary, permanent) in changes.permanentIDs {
            guard let object = registered.removeValue(forKey: temporary) else { continue }
            object.objectID = permanent
            object.store = coordinator.stores.first { $0.identifier == permanent.storeIdentifier }
            registered[permanent] = object
        }
        for id in changes.deleted {
            guard let object = registered[id], !object.isInserted else { continue }
            guard !object.hasChanges || mergePolicy == .rollback || mergePolicy == .storeTrumps else { continue }
            registered[id] = nil
            object.discardChanges()
            forgetTransientRelationships(of: object)
            object.isDeleted = true
        }
        for id in changes.updated.union(changes.inserted) {
            guard let object = registered[id], !object.isInserted else { continue }
            guard let row = try snapshot(of: id) else { continue }
            if object.hasChanges {
                guard mergePolicy != .error else { continue }
                try resolve(
                    SaveConflict(
                        storeIdentifier: id.storeIdentifier ?? "", storeName: "",
                        rows: [.init(entity: id.entity, key: id.key, expectedVersion: object.version, stored: row)]))
            } else {
                object.committed = row.storage
                object.version = row.version
                object.fetchedCache.removeAll()
            }
        }
    }

    /// After a save: tells observers, and merges the changes into the contexts that ask for it —
    /// the saving context's siblings (same parent, or same coordinator) and children — each on its queue.
    func didSave(_ changes: SavedChanges) {
        guard !changes.isEmpty else { return }
        NotificationCenter.default.post(name: Self.didSaveNotification, object: self, userInfo: [Self.savedChangesKey: changes])
        let targets = coordinator.serialized {
            let siblings = parent?.children ?? coordinator.topLevelContexts
            parent?.children.removeAll { $0.context == nil }
            if parent == nil { coordinator.topLevelContexts.removeAll { $0.context == nil } }
            children.removeAll { $0.context == nil }
            return (siblings + children).compactMap(\.context).filter { $0 !== self }
        }
        for target in targets {
            target.perform {
                guard target.automaticallyMergesChangesFromParent else { return }
                // A merge that cannot read a store leaves the objects as they were; the next save
                // of the target then meets the conflict under its merge policy.
                try? target.mergeChanges(from: changes)
            }
        }
    }
}
