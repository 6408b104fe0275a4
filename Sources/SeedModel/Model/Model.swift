/// A managed object model: entities and the configurations that group them into stores.
///
/// Mirrors [NSManagedObjectModel](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel).
/// Entities and configurations are kept sorted by name; ``source`` and each entity's
/// ``Entity/origin`` say where they came from and take no part in equality.
public struct Model: Sendable {
    /// The model's name: the bundle's or file's stem (`PostCodesModel`).
    public var name: String
    /// Xcode's "Versioning: Identifier" values (Core Data's `versionIdentifiers`).
    public var versionIdentifiers: [String]
    public var entities: [Entity] { didSet { entities.sort { $0.name < $1.name } } }
    /// The named configurations; ``Configuration/defaultName`` is implicit and never listed.
    public var configurations: [Configuration] { didSet { configurations.sort { $0.name < $1.name } } }
    /// Fetch requests stored in the model by name, sorted by name.
    public var fetchRequestTemplates: [FetchRequestTemplate] {
        didSet { fetchRequestTemplates.sort { $0.name < $1.name } }
    }
    /// Composite attribute definitions, sorted by name.
    public var composites: [Composite] { didSet { composites.sort { $0.name < $1.name } } }
    public var source: ModelSource?
    /// Warnings found while loading (a bundle with no current version named, say); reported by
    /// ``validate(requireFetchedPropertyTargets:)``, not part of equality.
    public var loadWarnings: [ModelDiagnostic] = []

    public init(
        name: String,
        versionIdentifiers: [String] = [],
        entities: [Entity],
        configurations: [Configuration] = [],
        fetchRequestTemplates: [FetchRequestTemplate] = [],
        composites: [Composite] = [],
        source: ModelSource? = nil
    ) {
        self.name = name
        self.versionIdentifiers = versionIdentifiers
        self.entities = entities.sorted { $0.name < $1.name }
        self.configurations = configurations.sorted { $0.name < $1.name }
        self.fetchRequestTemplates = fetchRequestTemplates.sorted { $0.name < $1.name }
        self.composites = composites.sorted { $0.name < $1.name }
        self.source = source
    }

    public func fetchRequestTemplate(named name: String) -> FetchRequestTemplate? {
        fetchRequestTemplates.first { $0.name == name }
    }

    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    /// The configuration with this name; ``Configuration/defaultName`` gives every entity.
    public func configuration(named name: String) -> Configuration? {
        if name == Configuration.defaultName {
            return configurations.first { $0.name == name }
                ?? Configuration(name: name, entities: entities.map(\.name))
        }
        return configurations.first { $0.name == name }
    }

    /// The names a configuration can be asked for: every named one, then `Default`.
    public var configurationNames: [String] {
        let named = configurations.map(\.name)
        return named.contains(Configuration.defaultName) ? named : named + [Configuration.defaultName]
    }

    /// The entities of one configuration.
    public func entities(in configuration: Configuration) -> [Entity] {
        configuration.entities.compactMap { entity(named: $0) }
    }

    /// The configuration a store of this model holds when none is named:
    /// the model's only named configuration, else `Default`.
    public var defaultStoreConfiguration: String {
        configurations.count == 1 ? configurations[0].name : Configuration.defaultName
    }

}

extension Model: Hashable {
    public static func == (lhs: Model, rhs: Model) -> Bool {
        lhs.name == rhs.name && lhs.versionIdentifiers == rhs.versionIdentifiers
            && lhs.entities == rhs.entities && lhs.configurations == rhs.configurations
            && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates && lhs.composites == rhs.composites
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(entities)
    }
}

/// A composite attribute's definition: named sub-attributes kept together as one value
/// (Core Data's [NSCompositeAttributeDescription](https://developer.apple.com/documentation/coredata/nscompositeattributedescription)).
public struct Composite: Sendable, Hashable {
    public var name: String
    public var elements: [Attribute]

    public init(name: String, elements: [Attribute]) {
        self.name = name
        self.elements = elements
    }
}
