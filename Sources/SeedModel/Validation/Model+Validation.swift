/// Checks a model for problems that would make a store unbuildable or a link impossible.
///
/// ```swift
/// let warnings = try model.validated()          // throws ModelError listing every error
/// ```
extension Model {
    /// The primary-key column of tables that have one, named as Core Data names it.
    /// Property names may not take it (SQLite compares names without regard to case).
    public static let primaryKeyColumn = "Z_PK"

    /// The column naming each row's entity in a table that holds an inheritance tree.
    public static let entityColumn = "Z_ENTITY"

    /// Prefix of the bookkeeping tables in a seed store; entity names may not use it.
    public static let reservedTablePrefix = "seed_"

    /// Every problem in the model, errors and warnings.
    /// - Parameter requireFetchedPropertyTargets: true for a merged model, where a fetched property
    ///   whose target entity is still missing is an error rather than a warning.
    public func validate(requireFetchedPropertyTargets: Bool = false) -> [ModelDiagnostic] {
        var validator = ModelValidator(model: self, requireFetchedPropertyTargets: requireFetchedPropertyTargets)
        return loadWarnings + validator.run()
    }

    /// Validates the model and returns its warnings.
    /// - Throws: ``ModelError`` with every diagnostic when any is an error.
    @discardableResult
    public func validated(requireFetchedPropertyTargets: Bool = false) throws(ModelError) -> [ModelDiagnostic] {
        let diagnostics = validate(requireFetchedPropertyTargets: requireFetchedPropertyTargets)
        if diagnostics.contains(where: { $0.severity == .error }) { throw .invalid(diagnostics) }
        return diagnostics
    }
}

struct ModelValidator {
    let model: Model
    let requireFetchedPropertyTargets: Bool
    private var diagnostics: [ModelDiagnostic] = []

    init(model: Model, requireFetchedPropertyTargets: Bool) {
        self.model = model
        self.requireFetchedPropertyTargets = requireFetchedPropertyTargets
    }

    mutating func run() -> [ModelDiagnostic] {
        checkEntityNames()
        for entity in model.entities {
            checkProperties(of: entity)
            checkRelationships(of: entity)
            checkFetchedProperties(of: entity)
            checkConstraintsAndIndexes(of: entity)
        }
        checkInheritance()
        checkTemplatesAndComposites()
        checkConfigurations()
        return diagnostics
    }

    private mutating func error(_ message: String, _ entity: Entity?, _ property: String? = nil) {
        diagnostics.append(
            ModelDiagnostic(
                .error, message, source: entity?.origin ?? model.source, entity: entity?.name, property: property))
    }

    private mutating func warning(_ message: String, _ entity: Entity?, _ property: String? = nil) {
        diagnostics.append(
            ModelDiagnostic(
                .warning, message, source: entity?.origin ?? model.source, entity: entity?.name, property: property))
    }

    private mutating func checkEntityNames() {
        var seen: [String: String] = [:]
        for entity in model.entities {
            if entity.name.isEmpty {
                error("an entity has no name; name it in Xcode's data model editor", entity)
                continue
            }
            if let other = seen[entity.name.lowercased()] {
                error("duplicate entity name (\"\(other)\" too; SQLite table names ignore case); rename one", entity)
            }
            seen[entity.name.lowercased()] = entity.name
            if entity.name.lowercased().hasPrefix(Model.reservedTablePrefix) {
                error(
                    "entity names starting with \"\(Model.reservedTablePrefix)\" are reserved for seed store bookkeeping; rename it", entity
                )
            }
        }
    }

    private mutating func checkInheritance() {
        for entity in model.entities {
            guard let parent = entity.parentEntity else { continue }
            guard model.entity(named: parent) != nil else {
                error("the parent entity \"\(parent)\" is not in the model; pick an entity of this model as its parent", entity)
                continue
            }
            let chain = model.inheritanceChain(of: entity)
            if model.superentity(of: chain[0]) != nil {
                error("the parent entities form a cycle (\(chain.map(\.name).joined(separator: " → "))); break it in Xcode", entity)
                continue
            }
            var inherited: [String: String] = [:]
            for ancestor in chain.dropLast() {
                for name in ancestor.propertyNames { inherited[name.lowercased()] = ancestor.name }
            }
            for name in entity.propertyNames {
                if let owner = inherited[name.lowercased()] {
                    error("the property is already inherited from \(owner); rename it or remove one of the two", entity, name)
                }
            }
        }
    }

    private mutating func checkTemplatesAndComposites() {
        for template in model.fetchRequestTemplates where model.entity(named: template.entity) == nil {
            error("the fetch request template \"\(template.name)\" names entity \"\(template.entity)\", which is not in the model", nil)
        }
        for entity in model.entities {
            for attribute in entity.attributes where attribute.type == .composite {
                guard let name = attribute.compositeName, model.composites.contains(where: { $0.name == name }) else {
                    error("the composite attribute names no composite of this model; choose one in Xcode", entity, attribute.name)
                    continue
                }
            }
        }
    }

    private mutating func checkProperties(of entity: Entity) {
        var seen: [String: String] = [:]
        for name in entity.propertyNames {
            if name.isEmpty {
                error("a property has no name; name it in Xcode's data model editor", entity)
                continue
            }
            if let other = seen[name.lowercased()] {
                error("duplicate property name (\"\(other)\" too; SQLite column names ignore case); rename one", entity, name)
            }
            seen[name.lowercased()] = name
            for reserved in [Model.primaryKeyColumn, Model.entityColumn] where name.caseInsensitiveCompare(reserved) == .orderedSame {
                error("\"\(reserved)\" is a column every store reserves; rename the property", entity, name)
            }
        }
        for attribute in entity.attributes {
            if !attribute.isTransient, attribute.type == .undefined || attribute.type == .objectID {
                error(
                    "a stored attribute needs a type (it has \(attribute.type.rawValue)); choose one in Xcode or mark it transient", entity,
                    attribute.name)
            }
            if let derivation = attribute.derivation, derivation.expression.trimmingCharacters(in: .whitespaces).isEmpty {
                error("the derived attribute has an empty derivation; write one in Xcode's data model inspector", entity, attribute.name)
            }
            // Core Data reads "NO" on an integer as 0 and "0.0" on a Boolean as NO; only what it
            // cannot read as the type at all is ignored, so this is a warning and the store gets no DEFAULT.
            if let value = attribute.defaultValue, let problem = DefaultValueCheck.problem(value, for: attribute.type) {
                warning("default value \"\(value)\" \(problem); it is ignored", entity, attribute.name)
            }
        }
    }

    private mutating func checkRelationships(of entity: Entity) {
        for relationship in entity.relationships {
            guard let destination = model.entity(named: relationship.destination) else {
                let hint =
                    relationship.destination.isEmpty
                    ? "has no destination entity" : "names destination entity \"\(relationship.destination)\", which is not in the model"
                error(
                    "the relationship \(hint); pick an entity of this model (to link to another model's entity, use a fetched property)",
                    entity, relationship.name)
                continue
            }
            if let inverseName = relationship.inverse {
                guard let inverse = model.allRelationships(of: destination).first(where: { $0.name == inverseName }) else {
                    error(
                        "inverse \"\(inverseName)\" is not a relationship of \(destination.name); fix the inverse in Xcode", entity,
                        relationship.name)
                    continue
                }
                if !model.entity(entity, isKindOf: inverse.destination) || inverse.inverse != relationship.name {
                    warning(
                        "the inverse \(destination.name).\(inverseName) does not point back to \(entity.name).\(relationship.name) (it goes to \(inverse.destination).\(inverse.inverse ?? "nothing")); Xcode warns about this too: make the two relationships each other's inverse",
                        entity, relationship.name)
                }
            } else if !relationship.isTransient {
                warning(
                    "the relationship has no inverse; Core Data advises one so that the object graph stays consistent", entity,
                    relationship.name)
            }
            // A transient relationship is never saved, so it may link objects of two stores (Core Data's
            // "Linking Data Between Two Core Data Stores" sample does so); a persistent one may not.
            for configuration in model.configurations
            where !relationship.isTransient && configuration.entities.contains(entity.name)
                && !configuration.entities.contains(destination.name)
            {
                error(
                    "the relationship crosses stores: \(entity.name) is in configuration \(configuration.name) but \(destination.name) is not; relationships cannot cross stores, so replace it with a fetched property (e.g. key == $FETCH_SOURCE.key)",
                    entity, relationship.name)
            }
            if relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
                error("minimum count \(relationship.minCount) exceeds maximum count \(relationship.maxCount)", entity, relationship.name)
            }
        }
    }

    private mutating func checkFetchedProperties(of entity: Entity) {
        for property in entity.fetchedProperties {
            if property.entity.isEmpty {
                error("the fetched property's fetch request names no entity", entity, property.name)
            } else if model.entity(named: property.entity) == nil {
                let message = "targets entity \"\(property.entity)\", which is not in this model"
                if requireFetchedPropertyTargets {
                    error("\(message) nor in the models merged with it; add the model that defines it", entity, property.name)
                } else {
                    warning("\(message); it must come from a model merged with this one", entity, property.name)
                }
            }
        }
    }

    private mutating func checkConstraintsAndIndexes(of entity: Entity) {
        for constraint in entity.uniquenessConstraints {
            let attributes = model.allAttributes(of: entity)
            let relationships = model.allRelationships(of: entity)
            for name in constraint where !attributes.contains(where: { $0.name == name }) {
                if relationships.contains(where: { $0.name == name && !$0.isToMany }) { continue }
                error(
                    "the uniqueness constraint (\(constraint.joined(separator: ", "))) names \"\(name)\", which is not an attribute or to-one relationship of \(entity.name)",
                    entity, name)
            }
        }
        for index in entity.indexes {
            if index.elements.isEmpty { error("the fetch index \"\(index.name)\" has no elements", entity) }
            let names = Set(model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name))
            for element in index.elements where !names.contains(element.property) {
                error(
                    "the fetch index \"\(index.name)\" names \"\(element.property)\", which is not an attribute or relationship of \(entity.name)",
                    entity, element.property)
            }
        }
    }

    private mutating func checkConfigurations() {
        var seen = Set<String>()
        for configuration in model.configurations {
            if !seen.insert(configuration.name).inserted {
                error("duplicate configuration \"\(configuration.name)\"; rename one", nil)
            }
            for name in configuration.entities where model.entity(named: name) == nil {
                error("configuration \(configuration.name) lists entity \"\(name)\", which is not in the model", nil)
            }
        }
        guard !model.configurations.isEmpty else { return }
        for entity in model.entities where !model.configurations.contains(where: { $0.entities.contains(entity.name) }) {
            warning(
                "the entity is in no configuration, so only a store with the Default configuration holds it; add it to a configuration",
                entity)
        }
    }
}
