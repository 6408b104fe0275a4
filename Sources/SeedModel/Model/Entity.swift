/// An entity: a kind of object, stored as one table.
///
/// Mirrors [NSEntityDescription](https://developer.apple.com/documentation/coredata/nsentitydescription).
/// Properties are kept sorted by name, so two models that differ only in element order are equal.
public struct Entity: Sendable {
    public var name: String
    public var representedClassName: String?
    public var parentEntity: String?
    public var isAbstract: Bool
    public var attributes: [Attribute] { didSet { attributes.sort { $0.name < $1.name } } }
    public var relationships: [Relationship] { didSet { relationships.sort { $0.name < $1.name } } }
    public var fetchedProperties: [FetchedProperty] { didSet { fetchedProperties.sort { $0.name < $1.name } } }
    /// Each constraint is a list of attribute names whose combined values are unique.
    public var uniquenessConstraints: [[String]]
    public var indexes: [FetchIndex]
    /// The entity's canonical old name, used to infer a rename during migration.
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var userInfo: [String: String]
    /// Where the entity was read from; not part of equality or of the JSON form.
    public var origin: ModelSource?

    public init(
        name: String,
        representedClassName: String? = nil,
        parentEntity: String? = nil,
        isAbstract: Bool = false,
        attributes: [Attribute] = [],
        relationships: [Relationship] = [],
        fetchedProperties: [FetchedProperty] = [],
        uniquenessConstraints: [[String]] = [],
        indexes: [FetchIndex] = [],
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:],
        origin: ModelSource? = nil
    ) {
        self.name = name
        self.representedClassName = representedClassName
        self.parentEntity = parentEntity
        self.isAbstract = isAbstract
        self.attributes = attributes.sorted { $0.name < $1.name }
        self.relationships = relationships.sorted { $0.name < $1.name }
        self.fetchedProperties = fetchedProperties.sorted { $0.name < $1.name }
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.origin = origin
    }

    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }

    public func relationship(named name: String) -> Relationship? {
        relationships.first { $0.name == name }
    }

    public func fetchedProperty(named name: String) -> FetchedProperty? {
        fetchedProperties.first { $0.name == name }
    }

    /// Every property name, attributes, relationships and fetched properties alike.
    public var propertyNames: [String] {
        attributes.map(\.name) + relationships.map(\.name) + fetchedProperties.map(\.name)
    }

    /// The single attribute that identifies an object, when one uniqueness constraint is exactly one attribute.
    public var singleAttributeKey: Attribute? {
        for constraint in uniquenessConstraints where constraint.count == 1 {
            if let attribute = attribute(named: constraint[0]), !attribute.isTransient { return attribute }
        }
        return nil
    }

}

extension Entity: Hashable {
    public static func == (lhs: Entity, rhs: Entity) -> Bool {
        lhs.name == rhs.name && lhs.representedClassName == rhs.representedClassName
            && lhs.parentEntity == rhs.parentEntity && lhs.isAbstract == rhs.isAbstract
            && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
            && lhs.fetchedProperties == rhs.fetchedProperties
            && lhs.uniquenessConstraints == rhs.uniquenessConstraints && lhs.indexes == rhs.indexes
            && lhs.renamingIdentifier == rhs.renamingIdentifier
            && lhs.versionHashModifier == rhs.versionHashModifier && lhs.userInfo == rhs.userInfo
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(attributes)
        hasher.combine(relationships)
    }
}
