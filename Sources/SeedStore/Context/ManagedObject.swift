import Foundation
import SeedModel

/// One object of an entity, registered in one ``ObjectContext``.
///
/// Mirrors [NSManagedObject](https://developer.apple.com/documentation/coredata/nsmanagedobject),
/// with values by name instead of generated properties:
/// ```swift
/// let rating = try context.insert(entity: "Rating")
/// rating["postcode"] = "CT1 1AA"
/// rating["rating"] = 5
/// let stars = try rating.integer("rating")      // 5
/// let postcode = try rating.fetchedObjects("…")  // fetched properties, lazily
/// ```
/// Values set here stay in memory until the context saves.
public final class ManagedObject {
    /// The entity, shared by every object of it: one reference per object rather than a copy of
    /// the struct, whose dozen fields each would be retained and released per object.
    let sharedEntity: SharedEntity
    /// The object's entity in the coordinator's model.
    public var entity: Entity { sharedEntity.entity }
    /// The object's ID: temporary until its first save, then its store and key.
    public internal(set) var objectID: ObjectID
    /// The store the object was fetched from or saved to; nil while it is new.
    public internal(set) weak var store: (any PersistentStore)?
    weak var context: ObjectContext?

    /// The values as last read from or saved to the store (attributes, and to-one keys stored on this
    /// side), laid out as the fetch's rows were: no dictionary of names per object.
    var committed: RowValues
    /// Attribute values set since then.
    var changes: [String: StoreValue] = [:]
    /// Names set that the entity has no attribute for, reported by the next save.
    var unknownKeys: Set<String> = []
    /// To-one relationships set since the last save.
    var toOneChanges: [String: ManagedObject?] = [:]
    /// To-many changes since the last save, in order.
    var toManyChanges: [String: [(object: ManagedObject, added: Bool)]] = [:]
    /// The version counter read with ``committed``.
    var version: Int64
    var fetchedCache: [String: [ManagedObject]] = [:]
    /// The key a save gave a new object, until the save finishes.
    var savedKey: StoreValue?
    /// Write over the stored row whatever its version (the overwrite merge policy).
    var forceWrite = false
    /// Whether the object was inserted in its context and not saved yet.
    public internal(set) var isInserted = false
    /// Whether the object was deleted in its context and the deletion not saved yet.
    public internal(set) var isDeleted = false

    init(entity: SharedEntity, objectID: ObjectID, values: RowValues, version: Int64, store: (any PersistentStore)?, context: ObjectContext)
    {
        sharedEntity = entity
        self.objectID = objectID
        self.committed = values
        self.version = version
        self.store = store
        self.context = context
    }

    /// An attribute value by name; `.null` when unset.
    ///
    /// The name is not checked when reading: a name the entity has no attribute for reads `.null`
    /// too, as a misspelling would (kept so, as Core Data's `value(forKey:)` on a dictionary of values
    /// would, for code that probes names). Use ``value(for:)``, the typed getters (``string(_:)``…)
    /// or a record (``decode(_:)``) where that must be an error. Setting a name
    /// the entity has no attribute for changes nothing and makes the next save fail naming it.
    public subscript(key: String) -> StoreValue {
        get {
            // Most objects read are unchanged: no hashing of the name into an empty dictionary.
            if !changes.isEmpty, let changed = changes[key] { return changed }
            return committed[key] ?? .null
        }
        set {
            guard sharedEntity.attributeTypes[key] != nil else {
                unknownKeys.insert(key)
                return
            }
            if committed[key] == newValue, !isInserted {
                changes[key] = nil
            } else {
                changes[key] = newValue
            }
        }
    }

    /// An attribute value by name, or an error when the entity has no attribute of that name.
    ///
    /// ```swift
    /// let county = try postcode.value(for: "county")   // .text("Kent")
    /// _ = try postcode.value(for: "cty")                // ContextError: Postcode has no attribute "cty"; …
    /// ```
    /// - Throws: ``ContextError`` (``ContextError/Kind/unknownName``) naming the entity and its
    ///   attributes, or saying which accessor to use when the name is a relationship or fetched property.
    public func value(for key: String) throws -> StoreValue {
        guard sharedEntity.attributeTypes[key] != nil else { throw unknownAttribute(key) }
        return self[key]
    }

    /// Sets an attribute value by name, or fails at once when the entity has no attribute of that name.
    /// - Throws: ``ContextError`` as ``value(for:)`` does.
    public func setValue(_ value: StoreValue, for key: String) throws {
        guard sharedEntity.attributeTypes[key] != nil else { throw unknownAttribute(key) }
        self[key] = value
    }

    private func unknownAttribute(_ key: String) -> ContextError {
        if let relationship = entity.relationship(named: key) {
            let accessor = relationship.isToMany ? "objects(forRelationship:)" : "object(forRelationship:)"
            return ContextError(
                .unknownName,
                "\(entity.name).\(key) is a \(relationship.isToMany ? "to-many" : "to-one") relationship, not an attribute; use \(accessor)"
            )
        }
        if entity.fetchedProperty(named: key) != nil {
            return ContextError(.unknownName, "\(entity.name).\(key) is a fetched property, not an attribute; use fetchedObjects(_:)")
        }
        return ContextError(
            .unknownName,
            "\(entity.name) has no attribute \"\(key)\"; its attributes are \(entity.attributes.map(\.name).joined(separator: ", ").ifEmpty("none"))"
        )
    }

    // The typed getters check the name, as value(for:) does: a misspelt name is an error, never a silent nil.
    /// An attribute's text; nil when unset or not text.
    /// - Throws: ``ContextError`` when the entity has no attribute of that name, as ``value(for:)`` does.
    public func string(_ key: String) throws -> String? { try value(for: key).stringValue }
    /// An attribute's whole number; nil when unset or not a whole number.
    /// - Throws: ``ContextError`` as ``string(_:)`` does.
    public func integer(_ key: String) throws -> Int64? { try value(for: key).integerValue }
    /// An attribute's number; nil when unset or not a number.
    /// - Throws: ``ContextError`` as ``string(_:)`` does.
    public func double(_ key: String) throws -> Double? { try value(for: key).doubleValue }
    /// A Boolean attribute (stored as `0`/`1`); nil when unset.
    /// - Throws: ``ContextError`` as ``string(_:)`` does.
    public func bool(_ key: String) throws -> Bool? { try value(for: key).integerValue.map { $0 != 0 } }
    /// A Binary attribute's bytes; nil when unset.
    /// - Throws: ``ContextError`` as ``string(_:)`` does.
    public func data(_ key: String) throws -> Data? { try value(for: key).dataValue }
    /// A Date attribute (stored as seconds since 1970); nil when unset.
    /// - Throws: ``ContextError`` as ``string(_:)`` does.
    public func date(_ key: String) throws -> Date? { try value(for: key).doubleValue.map { Date(timeIntervalSince1970: $0) } }

    /// Whether the object has unsaved changes (or is new or deleted).
    public var hasChanges: Bool {
        isInserted || isDeleted || !changes.isEmpty || !toOneChanges.isEmpty || !toManyChanges.isEmpty || !unknownKeys.isEmpty
    }

    /// The attribute values changed since the last save.
    public var changedValues: [String: StoreValue] { changes }

    /// Every persistent attribute's current value.
    public var values: [String: StoreValue] { currentValues.dictionary }

    /// Every persistent attribute's current value, laid out as every object of the entity shares.
    var currentValues: RowValues {
        let layout = sharedEntity.attributeLayout
        return RowValues(layout: layout, columns: layout.names.map { self[$0] })
    }

    /// The destination of a to-one relationship, read from the store when not changed here; a
    /// transient one's from the context, which alone keeps it.
    /// - Throws: ``ContextError`` when there is no such to-one relationship.
    public func object(forRelationship name: String) throws -> ManagedObject? {
        let relationship = try self.relationship(name, toMany: false)
        if relationship.isTransient { return context?.transientDestinations(of: self, name).first }
        if let changed = toOneChanges[name] { return changed }
        guard let context else { return nil }
        return try context.relatedObjects(of: self, relationship: relationship).first
    }

    /// The destinations of a to-many relationship: the stored ones with this context's changes
    /// applied; a transient one's as the context keeps them.
    public func objects(forRelationship name: String) throws -> [ManagedObject] {
        let relationship = try self.relationship(name, toMany: true)
        if relationship.isTransient { return context?.transientDestinations(of: self, name) ?? [] }
        var objects = try context?.relatedObjects(of: self, relationship: relationship) ?? []
        for change in toManyChanges[name] ?? [] {
            objects.removeAll { $0 === change.object }
            if change.added { objects.append(change.object) }
        }
        return objects
    }

    /// Sets a to-one relationship (nil clears it). A transient one may link objects of different
    /// stores; its transient inverse follows at once.
    public func setObject(_ object: ManagedObject?, forRelationship name: String) throws {
        let relationship = try self.relationship(name, toMany: false)
        try checkDestination(object, relationship)
        if relationship.isTransient {
            context?.setTransient(relationship, of: self, to: object)
            return
        }
        toOneChanges[name] = .some(object)
    }

    /// Adds `object` to the to-many relationship `name`; saved with the context (a transient one is kept by the context alone).
    /// - Throws: ``ContextError`` when the entity has no to-many relationship `name`, or `object` is not of its destination or belongs to another context.
    public func addObject(_ object: ManagedObject, toRelationship name: String) throws {
        let relationship = try self.relationship(name, toMany: true)
        try checkDestination(object, relationship)
        if relationship.isTransient {
            context?.link(self, relationship, object)
            return
        }
        toManyChanges[name, default: []].append((object, true))
    }

    /// Removes `object` from the to-many relationship `name`; saved with the context (a transient one is kept by the context alone).
    /// - Throws: ``ContextError`` when the entity has no to-many relationship `name`.
    public func removeObject(_ object: ManagedObject, fromRelationship name: String) throws {
        let relationship = try self.relationship(name, toMany: true)
        if relationship.isTransient {
            context?.unlink(self, relationship, object)
            return
        }
        toManyChanges[name, default: []].append((object, false))
    }

    /// The objects a fetched property finds, evaluated on first use against every store holding its
    /// entity with `$FETCH_SOURCE` bound to this object, and kept until ``ObjectContext/refresh(_:mergeChanges:)``.
    /// - Throws: ``ContextError`` for an unknown fetched property; ``FetchPredicateError`` when its predicate
    ///   does not parse or names a missing key path; ``CoordinatorError`` when no store holds its entity.
    public func fetchedObjects(_ name: String) throws -> [ManagedObject] {
        if let cached = fetchedCache[name] { return cached }
        guard let property = entity.fetchedProperty(named: name) else {
            throw ContextError(
                .unknownName,
                "\(entity.name) has no fetched property \"\(name)\"; it has \(entity.fetchedProperties.map(\.name).joined(separator: ", ").ifEmpty("none"))"
            )
        }
        guard let context else { throw ContextError(.objectNotFound, "\(objectID) is no longer in a context") }
        let objects = try context.evaluate(property, for: self)
        fetchedCache[name] = objects
        return objects
    }

    private func relationship(_ name: String, toMany: Bool) throws -> Relationship {
        guard let relationship = entity.relationship(named: name) else {
            throw ContextError(
                .unknownName,
                "\(entity.name) has no relationship \"\(name)\"; it has \(entity.relationships.map(\.name).joined(separator: ", ").ifEmpty("none"))"
            )
        }
        guard relationship.isToMany == toMany else {
            throw ContextError(
                .unknownName,
                "\(entity.name).\(name) is a \(relationship.isToMany ? "to-many" : "to-one") relationship; use \(relationship.isToMany ? "objects(forRelationship:)" : "object(forRelationship:)")"
            )
        }
        return relationship
    }

    private func checkDestination(_ object: ManagedObject?, _ relationship: Relationship) throws {
        guard let object else { return }
        guard object.entity.name == relationship.destination else {
            throw ContextError(
                .validation, "\(entity.name).\(relationship.name) leads to \(relationship.destination), not \(object.entity.name)")
        }
        guard object.context === context else {
            throw ContextError(
                .validation, "\(entity.name).\(relationship.name): \(object.objectID) belongs to another context; fetch it in this one")
        }
    }
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
