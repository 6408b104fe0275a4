import SeedModel

/// What a record is decoded from: an object of the context (its unsaved changes included), or a
/// fetched row that no object of the context holds, decoded without making one.
///
/// One reference either way: the standard library's keyed container box copies its container for
/// every key decoded, and a copy of this is one retain.
enum RecordSource {
    case object(ManagedObject)
    case row(RowRecord)

    var sharedEntity: SharedEntity {
        switch self {
        case .object(let object): object.sharedEntity
        case .row(let record): record.origin.entity
        }
    }

    /// An attribute's value and type, or nil when the entity has no attribute of that name.
    func attribute(_ name: String) -> (value: StoreValue, type: AttributeType)? {
        switch self {
        case .object(let object):
            guard let type = object.sharedEntity.attributeTypes[name] else { return nil }
            return (object[name], type)
        case .row(let record):
            guard let field = record.field(name) else { return nil }
            return (field.index.map { record.row.storage.value(at: $0) } ?? .null, field.type)
        }
    }

    var objectID: ObjectID {
        switch self {
        case .object(let object): object.objectID
        case .row(let record): ObjectID(entity: record.row.entity, storeIdentifier: record.origin.storeIdentifier, key: record.row.key)
        }
    }

    /// The context's object: relationships are read through it, as ``ManagedObject/object(forRelationship:)`` does.
    func object() -> ManagedObject {
        switch self {
        case .object(let object): object
        case .row(let record):
            record.origin.context.register(
                record.row, store: record.origin.store, storeIdentifier: record.origin.storeIdentifier, entity: record.origin.entity)
        }
    }
}

/// One fetched row being decoded as a record.
///
/// Its changing fields are read for every key decoded and never while being changed, so they are
/// exempt from run-time exclusivity checks (which took 4% of decoding in the profile).
final class RowRecord {
    @exclusivity(unchecked) private(set) var row: StoreRow
    let origin: RowOrigin
    /// How many attributes the record has looked up so far.
    @exclusivity(unchecked) private var lookups = 0

    private init(row: StoreRow, origin: RowOrigin) {
        self.row = row
        self.origin = origin
    }

    /// The record for the next row of a fetch: the previous one reused when nothing kept it (a
    /// record type that keeps its decoder keeps its own), else a new one.
    static func next(_ previous: inout RowRecord?, row: StoreRow, origin: RowOrigin) -> RowRecord {
        if isKnownUniquelyReferenced(&previous), let record = previous, record.origin === origin {
            record.row = row
            record.lookups = 0
            return record
        }
        let record = RowRecord(row: row, origin: origin)
        previous = record
        return record
    }

    /// The type and position of an attribute, or nil when the entity has none of that name.
    ///
    /// A record type asks for its keys in the same order for every row: the n-th key of the first
    /// record is remembered, and a later record asking for the same name there skips hashing it.
    func field(_ name: String) -> RowOrigin.Field? {
        defer { lookups += 1 }
        if lookups < origin.keyOrder.count, origin.keyOrder[lookups].name == name { return origin.keyOrder[lookups].field }
        let field = origin.attributes[name]
        if lookups == origin.keyOrder.count { origin.keyOrder.append((name, field)) }
        return field
    }
}

/// Where fetched rows decoded as records come from, shared by the rows of one store, entity and
/// layout in a fetch: what turns a row into an object when a record reads a relationship, and
/// each attribute's type and position in the rows.
final class RowOrigin {
    typealias Field = (type: AttributeType, index: Int?)

    let entity: SharedEntity
    let layout: RowLayout
    let store: any PersistentStore
    let storeIdentifier: String
    /// Held strongly while records decode (a record's relationship registers the row's object in it).
    let context: ObjectContext
    let attributes: [String: Field]
    /// The names the first record looked up, in order, with what they found (see ``RowRecord/field(_:)``).
    @exclusivity(unchecked) var keyOrder: [(name: String, field: Field?)] = []

    init(entity: SharedEntity, layout: RowLayout, store: any PersistentStore, storeIdentifier: String, context: ObjectContext) {
        self.entity = entity
        self.layout = layout
        self.store = store
        self.storeIdentifier = storeIdentifier
        self.context = context
        attributes = Dictionary(uniqueKeysWithValues: entity.attributeTypes.map { ($0.key, ($0.value, layout.index(of: $0.key))) })
    }

    /// Whether a row of `store` is decoded through this origin.
    func holds(_ row: StoreRow, of store: any PersistentStore) -> Bool {
        row.storage.layout === layout && store === self.store && row.entity == entity.name
    }
}
