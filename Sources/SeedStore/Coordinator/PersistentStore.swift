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
    var storeDescription: StoreDescription { get }
    var isReadOnly: Bool { get }
    /// The store's metadata as last read or saved.
    var metadata: StoreMetadata { get }
    /// The entities this store holds.
    var entityNames: Set<String> { get }

    /// Rows of one entity matching a request whose variables are substituted.
    func fetch(_ request: StoreFetch) throws -> [StoreRow]
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
    public var entity: String
    public var predicate: FetchPredicate?
    public var sortDescriptors: [FetchSortDescriptor]
    public var fetchLimit: Int?
    public var fetchOffset: Int
    /// When set, only rows with these keys.
    public var keys: [StoreValue]?

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
    case stored(StoreValue)
    case inserted(Int)
}

/// What one save writes to one store.
public struct StoreChanges: Sendable {
    public struct Insert: Sendable {
        public var entity: String
        public var values: [String: StoreValue]
        public init(entity: String, values: [String: StoreValue]) {
            self.entity = entity
            self.values = values
        }
    }

    public struct Update: Sendable {
        public var entity: String
        public var key: StoreValue
        /// Only the attributes that changed.
        public var values: [String: StoreValue]
        public var expectedVersion: Int64
        /// Write even when the stored version differs (the overwrite merge policy).
        public var force: Bool
        public init(entity: String, key: StoreValue, values: [String: StoreValue], expectedVersion: Int64, force: Bool = false) {
            self.entity = entity
            self.key = key
            self.values = values
            self.expectedVersion = expectedVersion
            self.force = force
        }
    }

    public struct Delete: Sendable {
        public var entity: String
        public var key: StoreValue
        public var expectedVersion: Int64
        public init(entity: String, key: StoreValue, expectedVersion: Int64) {
            self.entity = entity
            self.key = key
            self.expectedVersion = expectedVersion
        }
    }

    /// A relationship change: set a to-one, or add to / remove from a to-many.
    public struct Link: Sendable {
        public enum Kind: Sendable { case set, add, remove }
        public var entity: String
        public var source: RowReference
        public var relationship: String
        /// nil clears a to-one.
        public var destination: RowReference?
        public var kind: Kind
        public init(entity: String, source: RowReference, relationship: String, destination: RowReference?, kind: Kind) {
            self.entity = entity
            self.source = source
            self.relationship = relationship
            self.destination = destination
            self.kind = kind
        }
    }

    public var inserts: [Insert] = []
    public var updates: [Update] = []
    public var deletes: [Delete] = []
    public var links: [Link] = []
    /// New metadata to write; the store keeps its managed keys.
    public var metadata: StoreMetadata?

    public init() {}

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
    public struct Row: Sendable {
        public var entity: String
        public var key: StoreValue
        public var expectedVersion: Int64
        /// The stored row now, or nil when it was deleted.
        public var stored: StoreRow?
    }

    /// The store's ``PersistentStore/identifier`` and display name.
    public var storeIdentifier: String
    public var storeName: String
    public var rows: [Row]

    public init(storeIdentifier: String, storeName: String, rows: [Row]) {
        self.storeIdentifier = storeIdentifier
        self.storeName = storeName
        self.rows = rows
    }
}
