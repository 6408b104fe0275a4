/// A relationship from one entity to another within the same store.
///
/// Mirrors [NSRelationshipDescription](https://developer.apple.com/documentation/coredata/nsrelationshipdescription).
/// A persistent relationship may never cross stores: link across configurations with a
/// ``FetchedProperty``. A transient one (``isTransient``) may, since it is never saved: it has no
/// column or join table and lives only in the context that sets it.
public struct Relationship: Sendable, Hashable {
    public var name: String
    public var destination: String
    public var inverse: String?
    public var isToMany: Bool
    public var isOrdered: Bool
    /// 0 means no minimum.
    public var minCount: Int
    /// 0 means no maximum (a compiled model may say -1, kept because Core Data hashes it); a to-one has 1.
    public var maxCount: Int
    public var deleteRule: DeleteRule
    public var isOptional: Bool
    public var isTransient: Bool
    public var isReadOnly: Bool
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var userInfo: [String: String]

    public init(
        name: String,
        destination: String,
        inverse: String? = nil,
        isToMany: Bool = false,
        isOrdered: Bool = false,
        minCount: Int = 0,
        maxCount: Int? = nil,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        isTransient: Bool = false,
        isReadOnly: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.minCount = minCount
        self.maxCount = maxCount ?? (isToMany ? 0 : 1)
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isReadOnly = isReadOnly
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}
