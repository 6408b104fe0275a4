/// Entity inheritance: abstract entities, parent chains and the properties a sub-entity inherits.
///
/// A sub-entity holds every property of its ancestors besides its own, as in Core Data's
/// [NSEntityDescription.superentity](https://developer.apple.com/documentation/coredata/nsentitydescription/superentity);
/// ``Entity/attributes`` lists only the entity's own, the functions here the inherited ones too.
/// A cycle of parents is a validation error; these functions stop at the first repeated entity.
extension Model {
    /// The entity's parent, when it has one in this model.
    public func superentity(of entity: Entity) -> Entity? {
        entity.parentEntity.flatMap { self.entity(named: $0) }
    }

    /// The entity and its ancestors, the root first.
    public func inheritanceChain(of entity: Entity) -> [Entity] {
        var chain = [entity]
        var seen: Set<String> = [entity.name]
        while let parent = superentity(of: chain[0]), seen.insert(parent.name).inserted {
            chain.insert(parent, at: 0)
        }
        return chain
    }

    /// The root of the entity's tree (the entity itself when it has no parent).
    public func rootEntity(of entity: Entity) -> Entity {
        inheritanceChain(of: entity)[0]
    }

    /// The entities whose parent is this one, in name order.
    public func subentities(of entity: Entity) -> [Entity] {
        entities.filter { $0.parentEntity == entity.name && $0.name != entity.name }
    }

    /// The entity's sub-entities at every depth, depth first in name order (Core Data's numbering order).
    public func descendants(of entity: Entity) -> [Entity] {
        var result: [Entity] = []
        var seen: Set<String> = [entity.name]
        func visit(_ parent: Entity) {
            for child in subentities(of: parent) where seen.insert(child.name).inserted {
                result.append(child)
                visit(child)
            }
        }
        visit(entity)
        return result
    }

    /// Whether `entity` is `ancestor` or one of its sub-entities at any depth.
    public func entity(_ entity: Entity, isKindOf ancestor: String) -> Bool {
        inheritanceChain(of: entity).contains { $0.name == ancestor }
    }

    /// Every entity in Core Data's order: roots by name, each followed by its sub-entities depth first.
    /// An entity's position, counted from 1, is its entity number in a Core Data store (`Z_ENT`).
    public var entitiesInTreeOrder: [Entity] {
        var result: [Entity] = []
        for root in entities where superentity(of: root) == nil {
            result.append(root)
            result.append(contentsOf: descendants(of: root))
        }
        return result
    }

    /// The entity's attributes, inherited ones included, in name order.
    public func allAttributes(of entity: Entity) -> [Attribute] {
        inheritanceChain(of: entity).flatMap(\.attributes).sorted { $0.name < $1.name }
    }

    /// The entity's relationships, inherited ones included, in name order.
    public func allRelationships(of entity: Entity) -> [Relationship] {
        inheritanceChain(of: entity).flatMap(\.relationships).sorted { $0.name < $1.name }
    }

    /// The entity's fetched properties, inherited ones included, in name order.
    public func allFetchedProperties(of entity: Entity) -> [FetchedProperty] {
        inheritanceChain(of: entity).flatMap(\.fetchedProperties).sorted { $0.name < $1.name }
    }

    /// The entity with every inherited attribute, relationship and fetched property listed as its
    /// own, for code that reads one entity's properties (a managed object, a CSV's columns).
    public func resolved(_ entity: Entity) -> Entity {
        guard entity.parentEntity != nil else { return entity }
        var resolved = entity
        resolved.attributes = allAttributes(of: entity)
        resolved.relationships = allRelationships(of: entity)
        resolved.fetchedProperties = allFetchedProperties(of: entity)
        return resolved
    }

    /// Whether any entity has a parent.
    public var usesInheritance: Bool {
        entities.contains { $0.parentEntity != nil }
    }
}
