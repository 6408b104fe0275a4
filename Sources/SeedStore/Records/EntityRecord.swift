/// A record type that names its entity, when the entity is not named as the type is.
///
/// ```swift
/// struct Place: Decodable, EntityRecord {
///     static let entityName = "Postcode"
///     var postcode: String
///     var county: ObjectID?
/// }
/// let places = try context.fetch(Place.self)
/// ```
/// Without this conformance a record's entity is its type's name (`Postcode` for `struct Postcode`);
/// the `entity:` parameter of the record methods overrides both.
public protocol EntityRecord {
    static var entityName: String { get }
}

/// The key a record may use for its own object's ID, when its entity has no property of that name.
let recordObjectIDKey = "objectID"

/// The entity a record type stands for: the one given, the type's ``EntityRecord/entityName``, or its name.
func recordEntityName<Record>(_ type: Record.Type, _ given: String?) -> String {
    if let given { return given }
    if let named = type as? any EntityRecord.Type { return named.entityName }
    return String(describing: type)
}
