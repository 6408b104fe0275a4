/// Identifies one object: its entity, its store and its key there (temporary until first saved).
///
/// Mirrors [NSManagedObjectID](https://developer.apple.com/documentation/coredata/nsmanagedobjectid).
/// `Sendable`, so IDs cross tasks where objects cannot; `Codable`, so a record can carry one and an
/// app can keep one (a temporary ID means nothing after its context is gone).
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The object's entity.
    public let entity: String
    /// The identifier of the store holding the object; nil while it is temporary.
    public let storeIdentifier: String?
    /// The object's primary key in its store (`Z_PK`, or its key attribute), or a temporary number.
    public let key: StoreValue

    /// Whether the object has not been saved yet (its ID changes at its first save).
    public var isTemporary: Bool { storeIdentifier == nil }

    /// The key and the entity only: a context looks every fetched row's ID up, and hashing the store's
    /// 36-character identifier too would double the work for no fewer collisions in practice.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(entity)
    }

    /// The entity and key (`Postcode 42`), or `(new, unsaved #n)` for a temporary ID.
    public var description: String {
        isTemporary ? "\(entity) (new, unsaved #\(key.displayText))" : "\(entity) \(key.displayText)"
    }
}
