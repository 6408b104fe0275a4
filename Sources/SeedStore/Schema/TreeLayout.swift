import SeedModel

/// Lays inheritance trees out as one table each: the root's, holding the properties of every entity
/// of the tree, as Core Data does.
///
/// The layout model has one entity per table, named as the root, whose attributes and
/// relationships are those of the whole tree; a sub-entity's attributes are optional there, since
/// rows of the other entities have no value for them (the runtime still checks each object against
/// its own entity). Relationships point at the root of their destination's tree.
struct TreeLayout {
    /// One entity per table.
    var layout: Model
    /// Entity → the table (root entity) holding its rows.
    var tableNames: [String: String] = [:]
    /// Root → the entities of its tree, the root first, then depth first in name order.
    var members: [String: [String]] = [:]
    /// Entity → itself and its sub-entities at every depth.
    var kinds: [String: [String]] = [:]

    init(model: Model) throws(ModelError) {
        var diagnostics: [ModelDiagnostic] = []
        let names = Set(model.entities.map(\.name))
        for entity in model.entities {
            // Core Data keeps a tree in one table, so a configuration holds a sub-entity with its ancestors.
            if let parent = entity.parentEntity, !names.contains(parent) {
                diagnostics.append(
                    ModelDiagnostic(
                        .error,
                        "the configuration holds \(entity.name) but not its parent entity \(parent); add \(parent) to the configuration",
                        source: entity.origin ?? model.source, entity: entity.name))
            }
        }
        if !diagnostics.isEmpty { throw .invalid(diagnostics) }
        var flattened: [Entity] = []
        for root in model.entities where model.superentity(of: root) == nil {
            let tree = [root] + model.descendants(of: root)
            members[root.name] = tree.map(\.name)
            for entity in tree {
                tableNames[entity.name] = root.name
                kinds[entity.name] = [entity.name] + model.descendants(of: entity).map(\.name)
            }
            flattened.append(Self.flatten(tree, in: model, diagnostics: &diagnostics))
        }
        if !diagnostics.isEmpty { throw .invalid(diagnostics) }
        var layout = model
        let tableNames = self.tableNames
        // A relationship to an entity outside the configuration has no place in this store's layout;
        // model validation refuses one, and the coordinator refuses to save a link across stores.
        layout.entities = flattened.map { entity in
            var entity = entity
            entity.relationships = entity.relationships.compactMap { relationship in
                guard let table = tableNames[relationship.destination] else { return nil }
                var relationship = relationship
                relationship.destination = table
                return relationship
            }
            return entity
        }
        self.layout = layout
    }

    /// The root with the properties of the whole tree; a property two entities of the tree declare
    /// alike shares one column, unlike ones are refused.
    private static func flatten(_ tree: [Entity], in model: Model, diagnostics: inout [ModelDiagnostic]) -> Entity {
        var root = tree[0]
        guard tree.count > 1 else { return root }
        root.parentEntity = nil
        root.isAbstract = false
        for entity in tree.dropFirst() {
            for var attribute in entity.attributes {
                attribute.isOptional = true
                attribute.defaultValue = nil
                if let existing = root.attribute(named: attribute.name) {
                    if existing.type != attribute.type || existing.isTransient != attribute.isTransient {
                        diagnostics.append(
                            ModelDiagnostic(
                                .error,
                                "\(entity.name).\(attribute.name) and another attribute of the same name in the \(root.name) tree differ in type; the tree shares one table, so rename one",
                                source: entity.origin ?? model.source, entity: entity.name, property: attribute.name))
                    }
                    continue
                }
                root.attributes.append(attribute)
            }
            for var relationship in entity.relationships {
                relationship.isOptional = true
                if let existing = root.relationship(named: relationship.name) {
                    if existing.destination != relationship.destination || existing.isToMany != relationship.isToMany {
                        diagnostics.append(
                            ModelDiagnostic(
                                .error,
                                "\(entity.name).\(relationship.name) and another relationship of the same name in the \(root.name) tree differ; the tree shares one table, so rename one",
                                source: entity.origin ?? model.source, entity: entity.name, property: relationship.name))
                    }
                    continue
                }
                root.relationships.append(relationship)
            }
            root.uniquenessConstraints += entity.uniquenessConstraints.filter { !root.uniquenessConstraints.contains($0) }
            root.indexes += entity.indexes
        }
        return root
    }
}
