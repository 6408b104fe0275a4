/// The rule table applied entity by entity.
struct Inference {
    let source: Model
    let destination: Model
    var changes: [MigrationPlan.Change] = []
    var refusals: [ModelDiagnostic] = []
    var warnings: [String] = []
    /// Source entity name → destination entity name.
    private var entityNames: [String: String] = [:]
    /// Destination entity → source entity.
    var sourceEntities: [String: String] = [:]
    /// Destination entity → destination property → source property.
    var sourceProperties: [String: [String: String]] = [:]

    init(source: Model, destination: Model) {
        self.source = source
        self.destination = destination
    }

    private mutating func refuse(_ entity: String, _ property: String?, _ message: String) {
        refusals.append(ModelDiagnostic(.error, message, source: destination.source, entity: entity, property: property))
    }

    private mutating func add(
        _ kind: MigrationPlan.Change.Kind, _ entity: String, _ property: String?, old: String? = nil, _ detail: String
    ) {
        changes.append(MigrationPlan.Change(kind, entity: entity, property: property, oldName: old, detail: detail))
    }

    mutating func run(configuration name: String) {
        guard let configuration = destination.configuration(named: name) else {
            refuse(
                name, nil,
                "the destination model has no configuration \"\(name)\" (it has \(destination.configurationNames.joined(separator: ", "))); the store cannot be opened under it"
            )
            return
        }
        let targets = destination.entities(in: configuration)
        let matched = MappingInference.match(source.entities, targets, name: \.name, renaming: \.renamingIdentifier)
        for (old, new) in matched.pairs {
            entityNames[old.name] = new.name
            sourceEntities[new.name] = old.name
        }
        var removed: [Entity] = []
        for entity in matched.removed {
            let identity = MappingInference.canonical(entity.name, entity.renamingIdentifier)
            if let moved = destination.entities.first(where: {
                MappingInference.canonical($0.name, $0.renamingIdentifier) == identity || $0.name == entity.name
            }),
                let other = destination.configurations.first(where: { $0.entities.contains(moved.name) })
            {
                refuse(
                    entity.name, nil,
                    "moved to configuration \(other.name); an entity changing store is not a migration — ship it in a store of that configuration"
                )
            } else {
                removed.append(entity)
            }
        }
        // A removed entity whose stored properties an added one has too may be a rename without its
        // identifier: refused. One unlike every added entity is a removal, with a warning.
        var refused = false
        for entity in removed {
            if let twin = matched.added.first(where: {
                Self.storedShape(of: $0, in: destination) == Self.storedShape(of: entity, in: source)
            }) {
                refuse(
                    entity.name, nil,
                    "disappeared while \(twin.name), with the same properties, appeared without a renaming identifier; if it is \(entity.name) renamed, set its renaming identifier to \"\(entity.name)\", otherwise remove and add in separate model versions"
                )
                refused = true
            } else if !matched.added.isEmpty {
                warnings.append(
                    "\(entity.name) is removed (its rows dropped) while \(matched.added.map(\.name).joined(separator: ", ")) is added; if that was meant as a rename, it needs a renaming identifier of \"\(entity.name)\""
                )
            }
        }
        if refused { return }
        for entity in removed { add(.removeEntity, entity.name, nil, "the table and its rows are dropped") }
        for entity in matched.added { add(.addEntity, entity.name, nil, "a new, empty table") }
        for (old, new) in matched.pairs { compare(old, new) }
    }

    private mutating func compare(_ declaredOld: Entity, _ declaredNew: Entity) {
        let before = changes.count
        if declaredOld.name != declaredNew.name {
            add(
                .renameEntity, declaredNew.name, nil, old: declaredOld.name, "table \"\(declaredOld.name)\" becomes \"\(declaredNew.name)\""
            )
        }
        let oldParent = declaredOld.parentEntity.map { entityNames[$0] ?? $0 }
        if oldParent != declaredNew.parentEntity {
            add(
                .changeParent, declaredNew.name, nil,
                "parent \(declaredOld.parentEntity ?? "none") → \(declaredNew.parentEntity ?? "none"); its rows and values are kept")
        }
        // Compared with inherited properties listed as their own, a property moved up or down the
        // hierarchy is no change for the entities that have it before and after.
        let old = source.resolved(declaredOld)
        let new = destination.resolved(declaredNew)
        let attributeNames = compareAttributes(old, new)
        compareRelationships(old, new)
        compareConstraints(old, new, attributeNames: attributeNames)
        if changes.count == before, source.versionHash(of: declaredOld) != destination.versionHash(of: declaredNew) {
            add(.changeVersionHashOnly, new.name, nil, "nothing stored changes; the store's hashes are updated")
        }
    }

    /// Compares stored attributes; returns source attribute name → destination name.
    private mutating func compareAttributes(_ old: Entity, _ new: Entity) -> [String: String] {
        let matched = MappingInference.match(
            old.attributes.filter { !$0.isTransient }, new.attributes.filter { !$0.isTransient },
            name: \.name, renaming: \.renamingIdentifier)
        var names: [String: String] = [:]
        for (a, b) in matched.pairs {
            names[a.name] = b.name
            sourceProperties[new.name, default: [:]][b.name] = a.name
            if let from = a.type.integerWidth, let to = b.type.integerWidth, from != to {
                if from < to {
                    add(.widenType, new.name, b.name, "\(a.type.rawValue) → \(b.type.rawValue), values kept")
                } else {
                    refuse(
                        new.name, b.name,
                        "\(new.name).\(b.name) narrowed from \(a.type.rawValue) to \(b.type.rawValue); stored values may not fit. Keep \(a.type.rawValue), or add a new attribute and fill it in a data step."
                    )
                    continue
                }
            } else if a.type != b.type {
                refuse(
                    new.name, b.name,
                    "\(new.name).\(b.name) changed type from \(a.type.rawValue) to \(b.type.rawValue); lightweight migration cannot change a type. Add a new attribute instead and keep the old one, or ship a new model version with a data step."
                )
                continue
            }
            if a.name != b.name {
                add(.renameAttribute, new.name, b.name, old: a.name, "column \"\(a.name)\" becomes \"\(b.name)\", values kept")
            }
            if !a.isOptional && b.isOptional {
                add(.makeOptional, new.name, b.name, "the column loses NOT NULL")
            } else if a.isOptional && !b.isOptional {
                if let value = b.effectiveDefaultValue {
                    add(.makeRequired, new.name, b.name, "the column gains NOT NULL; empty values become \(value)")
                } else {
                    refuse(
                        new.name, b.name,
                        "\(new.name).\(b.name) became non-optional without a default value; stored rows may hold no value. Give it a default value or keep it optional."
                    )
                }
            }
        }
        for b in matched.added {
            if b.isOptional {
                add(.addAttribute, new.name, b.name, "new column, NULL in existing rows")
            } else if let value = b.effectiveDefaultValue {
                add(.addAttribute, new.name, b.name, "new column, NOT NULL DEFAULT \(value) in existing rows")
            } else {
                refuse(
                    new.name, b.name,
                    "\(new.name).\(b.name) is new and non-optional without a default value; stored rows would have no value. Give it a default value or make it optional."
                )
            }
        }
        for a in matched.removed {
            if let twin = matched.added.first(where: { $0.type == a.type }) {
                refuse(
                    new.name, a.name,
                    "\(old.name).\(a.name) disappeared while \(twin.name) (\(twin.type.rawValue)) appeared without a renaming identifier; if it is a rename, set \(twin.name)'s renaming identifier to \"\(a.name)\", otherwise remove and add in separate model versions"
                )
            } else {
                add(.removeAttribute, new.name, a.name, "the column and its values are dropped")
            }
        }
        return names
    }

    private mutating func compareRelationships(_ old: Entity, _ new: Entity) {
        let matched = MappingInference.match(
            old.relationships.filter { !$0.isTransient }, new.relationships.filter { !$0.isTransient },
            name: \.name, renaming: \.renamingIdentifier)
        for (r, s) in matched.pairs {
            sourceProperties[new.name, default: [:]][s.name] = r.name
            let expected = entityNames[r.destination] ?? r.destination
            guard s.destination == expected else {
                refuse(
                    new.name, s.name,
                    "\(new.name).\(s.name) changed destination from \(r.destination) to \(s.destination); lightweight migration cannot re-point a relationship. Add a new relationship instead."
                )
                continue
            }
            if r.name != s.name {
                add(.renameRelationship, new.name, s.name, old: r.name, "links kept under the new name")
            }
            let cardinalityChanged = r.isToMany != s.isToMany || r.isOrdered != s.isOrdered
            if cardinalityChanged {
                let lost =
                    r.isToMany && !s.isToMany
                    ? "; objects linked to more than one keep their first link, the others are dropped and reported" : ""
                add(.changeCardinality, new.name, s.name, "move links between the column and a join table\(lost)")
            }
            if r.isOptional && !s.isOptional {
                refuse(
                    new.name, s.name, "\(new.name).\(s.name) became non-optional; stored objects may have no destination. Keep it optional."
                )
            } else if !cardinalityChanged,
                r.deleteRule != s.deleteRule || r.minCount != s.minCount || r.maxCount != s.maxCount || r.isOptional != s.isOptional
            {
                add(.changeRelationshipRules, new.name, s.name, "delete rule or counts only; nothing stored changes")
            }
        }
        for s in matched.added {
            if s.isOptional {
                add(.addRelationship, new.name, s.name, "new relationship, no links in existing rows")
            } else {
                refuse(
                    new.name, s.name,
                    "\(new.name).\(s.name) is new and non-optional; stored objects would have no destination. Make it optional.")
            }
        }
        for r in matched.removed {
            let renamed = entityNames[r.destination] ?? r.destination
            if let twin = matched.added.first(where: { $0.destination == renamed }) {
                refuse(
                    new.name, r.name,
                    "\(old.name).\(r.name) disappeared while \(twin.name) to the same entity appeared without a renaming identifier; set \(twin.name)'s renaming identifier to \"\(r.name)\" if it is a rename"
                )
            } else {
                add(.removeRelationship, new.name, r.name, "the links are dropped")
            }
        }
    }

    private mutating func compareConstraints(_ old: Entity, _ new: Entity, attributeNames: [String: String]) {
        func rename(_ names: [String]) -> [String] { names.map { attributeNames[$0] ?? $0 } }
        let oldConstraints = Set(old.uniquenessConstraints.map(rename))
        let newConstraints = Set(new.uniquenessConstraints)
        for constraint in new.uniquenessConstraints where !oldConstraints.contains(constraint) {
            add(
                .addUniquenessConstraint, new.name, constraint.joined(separator: ","),
                "unique index after checking for duplicates (refused with examples if any)")
        }
        for constraint in old.uniquenessConstraints.map(rename) where !newConstraints.contains(constraint) {
            add(.removeUniquenessConstraint, new.name, constraint.joined(separator: ","), "the unique index is dropped")
        }
        // Indexes are not hashed (Core Data opens a store whose indexes differ): no change of the
        // plan; a table rebuilt for another change gets the new model's indexes.
    }

    /// What an entity stores, without names of its own: the types of its stored attributes and the
    /// destinations of its relationships, to tell a rename without an identifier from an unrelated entity.
    static func storedShape(of entity: Entity, in model: Model) -> [String] {
        (model.allAttributes(of: entity).filter(\.isStored).map { "\($0.name):\($0.type.rawValue)" }
            + model.allRelationships(of: entity).filter { !$0.isTransient }.map { "\($0.name)->\($0.destination)" }).sorted()
    }
}
