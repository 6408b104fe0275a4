extension ObjectContext {
    /// Applies the merge policy to objects another save changed first, so the save can be retried.
    func resolve(_ conflict: SaveConflict) throws {
        for row in conflict.rows {
            let id = ObjectID(entity: row.entity, storeIdentifier: conflict.storeIdentifier, key: row.key)
            guard let object = registered[id] else { continue }
            guard let stored = row.stored else {
                // Deleted by the other save: nothing to merge into.
                if mergePolicy == .rollback || mergePolicy == .storeTrumps || object.isDeleted {
                    registered[id] = nil
                    object.discardChanges()
                    object.isDeleted = true
                    continue
                }
                throw mergeError(SaveConflict(storeIdentifier: conflict.storeIdentifier, storeName: conflict.storeName, rows: [row]))
            }
            let previous = object.committed
            switch mergePolicy {
            case .error:
                throw mergeError(conflict)
            case .rollback:
                object.discardChanges()
            case .storeTrumps:
                for (key, _) in object.changes where stored[key] != previous[key] {
                    object.changes[key] = nil
                }
            case .objectTrumps:
                break
            case .overwrite:
                let current = object.values
                object.changes = current.filter { stored[$0.key] != $0.value }
                object.forceWrite = true
            }
            object.committed = stored.storage
            object.version = stored.version
            object.fetchedCache.removeAll()
        }
    }

    func mergeError(_ conflict: SaveConflict) -> ContextError {
        ContextError(
            .mergeConflict,
            "cannot save: \(conflict.rows.count) object\(conflict.rows.count == 1 ? " was" : "s were") changed in \(conflict.storeName) by another save since this context read \(conflict.rows.count == 1 ? "it" : "them"); set mergePolicy (storeTrumps, objectTrumps, overwrite, rollback), or refresh the objects and apply the changes again",
            problems: conflict.rows.map { row in
                guard let stored = row.stored else { return "\(row.entity) \(row.key.displayText): deleted by the other save" }
                return "\(row.entity) \(row.key.displayText): read at version \(row.expectedVersion), stored version is \(stored.version)"
            })
    }
}
