/// A stored query from an object to objects of another entity, possibly in another store.
///
/// Mirrors [NSFetchedPropertyDescription](https://developer.apple.com/documentation/coredata/nsfetchedpropertydescription):
/// the predicate may refer to the owning object as `$FETCH_SOURCE`, e.g. `postcode == $FETCH_SOURCE.postcode`.
public struct FetchedProperty: Sendable, Hashable {
    public var name: String
    /// The entity the query fetches.
    public var entity: String
    /// The predicate in `NSPredicate` format; empty when the fetch request has none, which
    /// fetches every object of ``entity``, as Core Data does.
    public var predicate: String
    public var isOptional: Bool
    public var userInfo: [String: String]

    public init(name: String, entity: String, predicate: String, isOptional: Bool = true, userInfo: [String: String] = [:]) {
        self.name = name
        self.entity = entity
        self.predicate = predicate
        self.isOptional = isOptional
        self.userInfo = userInfo
    }
}

/// A fetch request stored in the model by name (Xcode's "Fetch Request" template), run with
/// its `$VARIABLE`s substituted, like Core Data's
/// [fetchRequestFromTemplate(withName:substitutionVariables:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/fetchrequestfromtemplate(withname:substitutionvariables:)).
public struct FetchRequestTemplate: Sendable, Hashable {
    public var name: String
    public var entity: String
    /// The predicate in `NSPredicate` format; empty fetches every object.
    public var predicate: String

    public init(name: String, entity: String, predicate: String = "") {
        self.name = name
        self.entity = entity
        self.predicate = predicate
    }
}

extension FetchedProperty {
    /// The predicate to run: `TRUEPREDICATE` when the fetch request has none.
    public var predicateFormat: String { predicate.isEmpty ? "TRUEPREDICATE" : predicate }
}

extension FetchRequestTemplate {
    /// The predicate to run: `TRUEPREDICATE` when the template has none.
    public var predicateFormat: String { predicate.isEmpty ? "TRUEPREDICATE" : predicate }
}
