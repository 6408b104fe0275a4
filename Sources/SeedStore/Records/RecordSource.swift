import SeedModel

/// What a record is decoded from: an object of the context (its unsaved changes included), or a
/// fetched row that no object of the context holds, decoded without making one.
enum RecordSource {
    case object(ManagedObject)
    case row(FetchedRow)

    /// A stored row and where it came from, with what turns it into an object when a record asks
    /// for a relationship.
    struct FetchedRow {
        let row: StoreRow
        let entity: SharedEntity
        let store: any PersistentStore
        let storeIdentifier: String
        unowned let context: ObjectContext
    }

    var sharedEntity: SharedEntity {
        switch self {
        case .object(let object): object.sharedEntity
        case .row(let fetched): fetched.entity
        }
    }

    /// An attribute's value; `.null` when unset.
    func value(_ name: String) -> StoreValue {
        switch self {
        case .object(let object): object[name]
        case .row(let fetched): fetched.row[name] ?? .null
        }
    }

    var objectID: ObjectID {
        switch self {
        case .object(let object): object.objectID
        case .row(let fetched): ObjectID(entity: fetched.row.entity, storeIdentifier: fetched.storeIdentifier, key: fetched.row.key)
        }
    }

    /// The context's object: relationships are read through it, as ``ManagedObject/object(forRelationship:)`` does.
    func object() -> ManagedObject {
        switch self {
        case .object(let object): object
        case .row(let fetched): fetched.context.register(fetched.row, store: fetched.store, storeIdentifier: fetched.storeIdentifier, entity: fetched.entity)
        }
    }
}
