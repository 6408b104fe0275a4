/// A persistent (or transient, or derived) attribute of an entity.
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
    /// Kept in persistent history when the object is deleted (Xcode's "Preserve After Deletion").
    public var preservesValueInHistoryOnDeletion: Bool
    /// Set for a derived attribute: its value is computed from the expression, never given.
    public var derivation: Derivation?
    /// For a ``AttributeType/composite`` attribute, the name of the model's composite definition.
    public var compositeName: String?
    public var userInfo: [String: String]

    /// How a derived attribute's value is computed (Core Data's
    /// [NSDerivedAttributeDescription](https://developer.apple.com/documentation/coredata/nsderivedattributedescription)).
    public struct Derivation: Sendable, Hashable {
        /// The expression as Xcode writes it: `name`, `lowercase:(name)`, `chapters.@count`, `now()`.
        public var expression: String
        /// Only rows matching it take part (for aggregates over a relationship).
        public var filterPredicate: String?

        public init(expression: String, filterPredicate: String? = nil) {
            self.expression = expression
            self.filterPredicate = filterPredicate
        }
    }

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
        preservesValueInHistoryOnDeletion: Bool = false,
        derivation: Derivation? = nil,
        compositeName: String? = nil,
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
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.derivation = derivation
        self.compositeName = compositeName
        self.userInfo = userInfo
    }
}

extension Attribute {
    /// Whether the attribute has a column: neither transient nor of a type that cannot be stored.
    public var isStored: Bool { !isTransient && type.isStorable }

    /// Whether a CSV or a caller gives the value: stored and not derived.
    public var isGiven: Bool { isStored && derivation == nil }
}
