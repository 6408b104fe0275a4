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
}
