/// An index on one or more properties of an entity (Xcode's "Fetch Index").
///
/// See [NSFetchIndexDescription](https://developer.apple.com/documentation/coredata/nsfetchindexdescription).
public struct FetchIndex: Sendable, Hashable {
    public struct Element: Sendable, Hashable {
        public var property: String
        public var isAscending: Bool

        public init(property: String, isAscending: Bool = true) {
            self.property = property
            self.isAscending = isAscending
        }
    }

    public var name: String
    public var elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }

    /// An older Xcode's compound index (`<compoundIndex>` in the model, `NSCompoundIndexes` in a
    /// compiled one) over these properties, ascending, named `compound_<properties>`.
    public static func compound(_ properties: [String]) -> FetchIndex {
        FetchIndex(name: "compound_" + properties.joined(separator: "_"), elements: properties.map { Element(property: $0) })
    }

    /// Whether this is a compound index (Core Data names its SQLite index otherwise than a fetch index's).
    public var isCompoundIndex: Bool {
        self == Self.compound(elements.map(\.property))
    }
}
