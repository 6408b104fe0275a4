import SeedModel

/// What a record is decoded from: an object of the context (its unsaved changes included), or a
/// fetched row that no object of the context holds, decoded without making one.
enum RecordSource {
    case object(ManagedObject)
    case row(RowRecord, RowOrigin)

    /// What a record needs of a row: copied into each decoding container, so only the row's values
    /// array and its identity (no layout or sort values of its own; the origin has the layout).
    struct RowRecord {
        let entity: String
        let key: StoreValue
        let version: Int64
        let columns: [StoreValue]

        init(_ row: StoreRow) {
            entity = row.entity
            key = row.key
            version = row.version
            columns = row.storage.columns
        }
    }

    var sharedEntity: SharedEntity {
        switch self {
        case .object(let object): object.sharedEntity
        case .row(_, let origin): origin.entity
        }
    }

    /// An attribute's value and type, or nil when the entity has no attribute of that name.
    func attribute(_ name: String) -> (value: StoreValue, type: AttributeType)? {
        switch self {
        case .object(let object):
            guard let type = object.sharedEntity.attributeTypes[name] else { return nil }
            return (object[name], type)
        case .row(let row, let origin):
            // One look-up of the name: its type and its place in the rows, worked out per fetch.
            guard let field = origin.attributes[name] else { return nil }
            return (field.index.map { row.columns[$0] } ?? .null, field.type)
        }
    }

    var objectID: ObjectID {
        switch self {
        case .object(let object): object.objectID
        case .row(let row, let origin): ObjectID(entity: row.entity, storeIdentifier: origin.storeIdentifier, key: row.key)
        }
    }

    /// The context's object: relationships are read through it, as ``ManagedObject/object(forRelationship:)`` does.
    func object() -> ManagedObject {
        switch self {
        case .object(let object): return object
        case .row(let row, let origin):
            let stored = StoreRow(entity: row.entity, key: row.key, storage: RowValues(layout: origin.layout, columns: row.columns), version: row.version)
            return origin.context.register(stored, store: origin.store, storeIdentifier: origin.storeIdentifier, entity: origin.entity)
        }
    }
}

/// Where fetched rows decoded as records come from, shared by the rows of one store, entity and
/// layout in a fetch: what turns a row into an object when a record reads a relationship, and
/// each attribute's type and position in the rows.
final class RowOrigin {
    let entity: SharedEntity
    let layout: RowLayout
    let store: any PersistentStore
    let storeIdentifier: String
    /// Held strongly while records decode (a record's relationship registers the row's object in it).
    let context: ObjectContext
    let attributes: [String: (type: AttributeType, index: Int?)]

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
