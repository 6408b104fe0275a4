import SeedModel

/// Transient relationships: kept by the context, never by a store.
///
/// A transient relationship has no column or join table in any layout, so its destinations live in
/// the context that set them — which is what lets one link objects of two stores, as Core Data's
/// [Linking Data Between Two Core Data Stores](https://developer.apple.com/documentation/coredata/linking_data_between_two_core_data_stores)
/// sample links an in-memory object to one of a read-only store. Setting one is not a change to
/// save (an object of a read-only store can be a destination), a save keeps the links, a
/// ``rollback()`` returns to the links of the last save, and ``reset()``, a new context or
/// reopened stores start without any. A transient inverse is kept in step, and deleting an
/// object applies the transient relationships' delete rules in the context.
extension ObjectContext {
    /// One relationship of one object, whichever ID the object has (temporary or permanent).
    struct TransientLink: Hashable {
        let source: ObjectIdentifier
        let relationship: String

        init(_ source: ManagedObject, _ relationship: String) {
            self.source = ObjectIdentifier(source)
            self.relationship = relationship
        }
    }

    /// Forgets every object: new, changed and deleted ones, and the transient relationships between
    /// them (Core Data's [reset()](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/reset())).
    /// Objects held from before belong to no context any more; fetch them again.
    public func reset() {
        let forgotten = Array(registered.values)
        rollback()
        for object in forgotten {
            object.context = nil
            object.fetchedCache.removeAll()
        }
        registered.removeAll()
        transientLinks.removeAll()
        savedTransientLinks.removeAll()
    }

    func transientDestinations(of object: ManagedObject, _ relationship: String) -> [ManagedObject] {
        transientLinks[TransientLink(object, relationship)] ?? []
    }

    /// Sets a transient to-one; nil clears it.
    func setTransient(_ relationship: Relationship, of object: ManagedObject, to destination: ManagedObject?) {
        guard let destination else {
            for old in transientDestinations(of: object, relationship.name) { unlink(object, relationship, old) }
            return
        }
        link(object, relationship, destination)
    }

    /// Links `destination` and, through a transient inverse, `source` back; a to-one on either side
    /// first lets go of its former partner, whose inverse lets go in turn.
    func link(_ source: ManagedObject, _ relationship: Relationship, _ destination: ManagedObject) {
        if !relationship.isToMany {
            for old in transientDestinations(of: source, relationship.name) where old !== destination { unlink(source, relationship, old) }
        }
        let key = TransientLink(source, relationship.name)
        if !(transientLinks[key] ?? []).contains(where: { $0 === destination }) { transientLinks[key, default: []].append(destination) }
        guard let inverse = transientInverse(of: relationship, at: destination) else { return }
        if !inverse.isToMany {
            for old in transientDestinations(of: destination, inverse.name) where old !== source { unlink(destination, inverse, old) }
        }
        let back = TransientLink(destination, inverse.name)
        if !(transientLinks[back] ?? []).contains(where: { $0 === source }) { transientLinks[back, default: []].append(source) }
    }

    func unlink(_ source: ManagedObject, _ relationship: Relationship, _ destination: ManagedObject) {
        remove(destination, from: TransientLink(source, relationship.name))
        if let inverse = transientInverse(of: relationship, at: destination) {
            remove(source, from: TransientLink(destination, inverse.name))
        }
    }

    /// The inverse kept in step with a transient relationship: a transient one only, since a
    /// persistent inverse is what a store keeps.
    private func transientInverse(of relationship: Relationship, at destination: ManagedObject) -> Relationship? {
        relationship.inverse.flatMap { destination.entity.relationship(named: $0) }.flatMap { $0.isTransient ? $0 : nil }
    }

    private func remove(_ object: ManagedObject, from key: TransientLink) {
        guard var list = transientLinks[key] else { return }
        list.removeAll { $0 === object }
        transientLinks[key] = list.isEmpty ? nil : list
    }

    /// Takes an object out of every transient relationship, from its side and from the others'.
    func unlinkTransientRelationships(of object: ManagedObject) {
        let source = ObjectIdentifier(object)
        for key in transientLinks.keys {
            if key.source == source {
                transientLinks[key] = nil
            } else {
                remove(object, from: key)
            }
        }
    }

    /// Forgets an object's transient relationships also as of the last save, so that a rollback does
    /// not bring them back: for an object deleted from its store, or refreshed without its changes.
    func forgetTransientRelationships(of object: ManagedObject) {
        unlinkTransientRelationships(of: object)
        guard !savedTransientLinks.isEmpty else { return }
        let source = ObjectIdentifier(object)
        savedTransientLinks = savedTransientLinks.compactMapValues { list in
            let kept = list.filter { $0 !== object }
            return kept.isEmpty ? nil : kept
        }.filter { $0.key.source != source }
    }

    /// A stored object's deletion, in the context: cascade deletes the destinations (a save then
    /// writes them, and refuses those of a read-only store), nullify and no action take the object
    /// out of every transient relationship. Deny leaves everything linked, for the save to refuse
    /// (see ``transientDenials(_:)``), as Core Data checks deny when it saves.
    func applyTransientDeleteRules(to object: ManagedObject) {
        let relationships = object.entity.relationships.filter(\.isTransient)
        let denied = relationships.contains { $0.deleteRule == .deny && !transientDestinations(of: object, $0.name).isEmpty }
        guard !denied else { return }
        for relationship in relationships where relationship.deleteRule == .cascade {
            for destination in transientDestinations(of: object, relationship.name) { delete(destination) }
        }
        unlinkTransientRelationships(of: object)
    }

    /// A problem for each object to be deleted whose transient relationship with the Deny rule still
    /// holds objects.
    func transientDenials(_ deleted: [ManagedObject]) -> [String] {
        deleted.flatMap { object in
            object.entity.relationships.filter { $0.isTransient && $0.deleteRule == .deny }.compactMap { relationship in
                let held = transientDestinations(of: object, relationship.name)
                guard !held.isEmpty else { return nil }
                return
                    "\(object.objectID): cannot be deleted, its transient relationship \(object.entity.name).\(relationship.name) has the Deny rule "
                    + "and still holds \(held.count) \(relationship.destination) object\(held.count == 1 ? "" : "s") in this context; unlink or delete them first"
            }
        }
    }
}
