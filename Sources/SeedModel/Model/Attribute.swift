/// A persistent (or transient) attribute of an entity.
///
/// Mirrors [NSAttributeDescription](https://developer.apple.com/documentation/coredata/nsattributedescription).
public struct Attribute: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    public var isTransient: Bool
    public var isReadOnly: Bool
    /// The default value as Xcode's `defaultValueString` writes it (`3`, `YES`, `0.5`, a date's seconds since 2001).
    public var defaultValue: String?
    public var minValue: String?
    public var maxValue: String?
    /// The older per-attribute `indexed` flag; Xcode's fetch indexes are on ``Entity/indexes``.
    public var isIndexed: Bool
    /// The attribute's canonical old name, used to infer a rename during migration.
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var valueTransformerName: String?
    public var allowsExternalBinaryDataStorage: Bool
    public var userInfo: [String: String]

    public init(
        name: String,
        type: AttributeType,
        isOptional: Bool = true,
        isTransient: Bool = false,
        isReadOnly: Bool = false,
        defaultValue: String? = nil,
        minValue: String? = nil,
        maxValue: String? = nil,
        isIndexed: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        valueTransformerName: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isReadOnly = isReadOnly
        self.defaultValue = defaultValue
        self.minValue = minValue
        self.maxValue = maxValue
        self.isIndexed = isIndexed
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.valueTransformerName = valueTransformerName
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.userInfo = userInfo
    }
}
