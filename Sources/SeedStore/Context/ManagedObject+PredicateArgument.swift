/// A managed object passed for `%@` stands for its ``ObjectID``, as NSPredicate compares managed
/// objects by identity:
///
/// ```swift
/// let staff = try FetchPredicate("department == %@", sales)
/// let teams = try FetchPredicate("%@ IN members", alice)
/// ```
extension ManagedObject: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .object(objectID) }
}
