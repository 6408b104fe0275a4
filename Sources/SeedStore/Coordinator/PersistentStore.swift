import Foundation
import SeedModel

/// A store the coordinator can route objects to: the equivalent of an `NSIncrementalStore`.
///
/// The four built-in types (``StoreType``) conform; an app can add its own with
/// ``StoreCoordinator/addStore(_:)-(PersistentStore)``. A store works in rows: attribute values and
/// to-one keys by property name (``StoreRow``, its values laid out once per fetch), keyed by the
/// object's primary key, each with a version counter for optimistic locking.
public protocol PersistentStore: AnyObject {
    /// A stable identifier: the store's UUID from its metadata.
    var identifier: String { get }
    /// The description the store was added with.
    var storeDescription: StoreDescription { get }
    /// Whether saves to the store are refused.
    var isReadOnly: Bool { get }
    /// The store's metadata as last read or saved.
    var metadata: StoreMetadata { get }
    /// The entities this store holds.
    var entityNames: Set<String> { get }

    /// Rows of one entity matching a request whose variables are substituted.
    func fetch(_ request: StoreFetch) throws -> [StoreRow]
    /// How many rows of one entity match a request whose variables are substituted.
    func count(_ request: StoreFetch) throws -> Int
    /// The keys of the objects a relationship of one object points at, in order for an ordered one.
    func relatedKeys(entity: String, key: StoreValue, relationship: String) throws -> [StoreValue]
    /// Applies changes all or nothing. Calls `beforeCommit` once the changes are written but not yet
    /// committed, so a coordinator can commit several stores together; if it throws, nothing changes.
    /// - Throws: ``SaveConflict`` when an updated or deleted row's version is not the expected one.
    func save(_ changes: StoreChanges, beforeCommit: () throws -> Void) throws -> SaveOutcome
    /// Releases files and connections.
    func close() throws
}

/// A fetch handed to one store.
public struct StoreFetch: Sendable {
    /// The entity whose rows to fetch (its sub-entities' rows too).
    public var entity: String
    /// Which rows; every row when nil.
    public var predicate: FetchPredicate?
    /// The rows' order; each row carries these keys' values (``StoreRow``'s sort values).
    public var sortDescriptors: [FetchSortDescriptor]
    /// The most rows to return.
    public var fetchLimit: Int?
    /// How many of the sorted rows to skip first.
    public var fetchOffset: Int
    /// When set, only rows with these keys.
    public var keys: [StoreValue]?

    /// A fetch of `entity`'s rows.
    public init(
        entity: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [],
        fetchLimit: Int? = nil, fetchOffset: Int = 0, keys: [StoreValue]? = nil
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.keys = keys
    }
}

/// An object a change refers to: already stored, or the n-th insert of the same save.
public enum RowReference: Sendable, Hashable {
    /// A row already in the store, by its primary key.
    case stored(StoreValue)
    /// The n-th ``StoreChanges/Insert`` of the same save, counted from 0.
    case inserted(Int)
}

/// What one save writes to one store.
public struct StoreChanges: Sendable {
    /// A new row.
    public struct Insert: Sendable {
        /// The entity of the new row.
        public var entity: String
        /// Its attribute values and to-one keys, by property name.
        public var values: [String: StoreValue]
        /// An insert of `values` into `entity`.
        public init(entity: String, values: [String: StoreValue]) {
            self.entity = entity
            self.values = values
        }
    }

    /// Changed values of a stored row.
    public struct Update: Sendable {
        /// The entity of the row.
        public var entity: String
        /// The row's primary key.
        public var key: StoreValue
        /// Only the attributes that changed.
        public var values: [String: StoreValue]
        /// The row's version when it was fetched: the update is a ``SaveConflict`` if the store holds another.
        public var expectedVersion: Int64
        /// Write even when the stored version differs (the overwrite merge policy).
        public var force: Bool
        /// An update of the row `key` of `entity`.
        public init(entity: String, key: StoreValue, values: [String: StoreValue], expectedVersion: Int64, force: Bool = false) {
            self.entity = entity
            self.key = key
            self.values = values
            self.expectedVersion = expectedVersion
            self.force = force
        }
    }

    /// A stored row to remove.
    public struct Delete: Sendable {
        /// The entity of the row.
        public var entity: String
        /// The row's primary key.
        public var key: StoreValue
        /// The row's version when it was fetched: the delete is a ``SaveConflict`` if the store holds another.
        public var expectedVersion: Int64
        /// A delete of the row `key` of `entity`.
        public init(entity: String, key: StoreValue, expectedVersion: Int64) {
            self.entity = entity
            self.key = key
            self.expectedVersion = expectedVersion
        }
    }

    /// A relationship change: set a to-one, or add to / remove from a to-many.
    public struct Link: Sendable {
        /// Set a to-one relationship, or add to or remove from a to-many one.
        public enum Kind: Sendable { case set, add, remove }
        /// The entity of the source object.
        public var entity: String
        /// The object whose relationship changes.
        public var source: RowReference
        /// The relationship's name.
        public var relationship: String
        /// nil clears a to-one.
        public var destination: RowReference?
        /// What the change does.
        public var kind: Kind
        /// A change of `source`'s `relationship` to or by `destination`.
        public init(entity: String, source: RowReference, relationship: String, destination: RowReference?, kind: Kind) {
            self.entity = entity
            self.source = source
            self.relationship = relationship
            self.destination = destination
            self.kind = kind
        }
    }

    /// New rows, in order (``RowReference/inserted(_:)`` counts them).
    public var inserts: [Insert] = []
    /// Changed rows.
    public var updates: [Update] = []
    /// Removed rows.
    public var deletes: [Delete] = []
    /// Relationship changes.
    public var links: [Link] = []
    /// New metadata to write; the store keeps its managed keys.
    public var metadata: StoreMetadata?

    /// No changes.
    public init() {}

    /// Whether the save writes nothing.
    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && links.isEmpty && metadata == nil }
}

/// What a save produced.
public struct SaveOutcome: Sendable {
    /// The key of each insert, in order.
    public var insertedKeys: [StoreValue]
    /// The new version of each updated row, in the order of ``StoreChanges/updates``.
    public var updatedVersions: [Int64]
}

/// Rows a save found changed (or deleted) by someone else since they were fetched.
public struct SaveConflict: Error, Sendable {
    /// A row whose stored version is not the one the save expected.
    public struct Row: Sendable {
        /// The row's entity.
        public var entity: String
        /// The row's primary key.
        public var key: StoreValue
        /// The version the save expected.
        public var expectedVersion: Int64
        /// The stored row now, or nil when it was deleted.
        public var stored: StoreRow?
    }

    /// The store's ``PersistentStore/identifier`` and display name.
    public var storeIdentifier: String
    /// The store's display name, for messages.
    public var storeName: String
    /// Every conflicting row.
    public var rows: [Row]

    /// A conflict in the store `storeIdentifier` over `rows`.
    public init(storeIdentifier: String, storeName: String, rows: [Row]) {
        self.storeIdentifier = storeIdentifier
        self.storeName = storeName
        self.rows = rows
    }
}
