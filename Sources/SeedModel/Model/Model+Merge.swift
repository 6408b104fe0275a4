/// Merging models: seed model ∪ user model, as Core Data's
/// [mergedModel(from:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/mergedmodel(from:)) does.
extension Model {
    /// The union of the models' entities and configurations.
    ///
    /// Configurations of the same name are joined. Each entity keeps its ``Entity/origin``,
    /// so later diagnostics still name the file it came from.
    /// - Throws: ``ModelError`` naming both source files for every entity defined twice.
    public static func merged(_ models: [Model]) throws(ModelError) -> Model {
        guard models.count > 1 else {
            guard let only = models.first else { throw .invalid("no model to merge", source: nil) }
            return only
        }
        var entities: [String: Entity] = [:]
        var diagnostics: [ModelDiagnostic] = []
        for model in models {
            for var entity in model.entities {
                entity.origin = entity.origin ?? model.source
                if let existing = entities[entity.name] {
                    diagnostics.append(
                        ModelDiagnostic(
                            .error,
                            "defined in both \(existing.origin?.description ?? existing.name) and "
                                + "\(entity.origin?.description ?? model.name); an entity may come from one model only, rename one",
                            source: entity.origin, entity: entity.name))
                    continue
                }
                entities[entity.name] = entity
            }
        }
        if !diagnostics.isEmpty { throw .invalid(diagnostics) }
        var configurations: [String: Set<String>] = [:]
        for model in models {
            for configuration in model.configurations {
                configurations[configuration.name, default: []].formUnion(configuration.entities)
            }
        }
        var identifiers: [String] = []
        for identifier in models.flatMap(\.versionIdentifiers) where !identifiers.contains(identifier) {
            identifiers.append(identifier)
        }
        return Model(
            name: models.map(\.name).joined(separator: "+"),
            versionIdentifiers: identifiers,
            entities: Array(entities.values),
            configurations: configurations.map { Configuration(name: $0.key, entities: Array($0.value)) },
            fetchRequestTemplates: models.flatMap(\.fetchRequestTemplates),
            composites: models.flatMap(\.composites),
            source: models.compactMap(\.source).first.map { _ in
                ModelSource(file: models.compactMap(\.source).map(\.description).joined(separator: " + "))
            })
    }
}
