import Foundation
import SeedModel

/// A seed store's metadata: the JSON values in its `seed_metadata` table.
///
/// Readable without a coordinator, like Core Data's
/// [metadataForPersistentStore(ofType:at:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/metadataforpersistentstore(oftype:at:options:)):
/// ```swift
/// let metadata = try StoreMetadata.read(at: storeURL)
/// print(metadata.versionHashes, metadata.rowCounts)
/// ```
public struct StoreMetadata: Sendable, Hashable {
    /// `PRAGMA application_id` of every seed store: "SEED" in ASCII.
    package static let applicationID: Int32 = 0x5345_4544
    /// `PRAGMA user_version`: the store format version.
    package static let storeFormatVersion: Int32 = 1
    /// The table holding the metadata.
    package static let tableName = "seed_metadata"
    /// The table holding the canonical JSON model of the stored configuration.
    package static let modelTableName = "seed_model"

    /// The well-known keys (documented in `docs/store-format.md`).
    public enum Key {
        /// `"SQLite"`.
        public static let storeType = "storeType"
        /// The channel's UUID, the same for every release of it: Core Data's object IDs name it.
        public static let storeUUID = "storeUUID"
        /// The model's name.
        public static let modelName = "modelName"
        /// The model's version identifiers.
        public static let modelVersionIdentifiers = "modelVersionIdentifiers"
        /// The configuration the store holds.
        public static let configuration = "configuration"
        /// Entity name → Core Data's version hash (64 hex characters) of the model the store is stamped for.
        public static let versionHashes = "versionHashes"
        /// The encoding of the version hashes: 2, Core Data's.
        public static let hashEncodingVersion = "hashEncodingVersion"
        /// The store format version, 1.
        package static let storeFormatVersion = "storeFormatVersion"
        /// The release number, increasing with every release of a channel.
        public static let dataVersion = "dataVersion"
        /// When the store was built (ISO 8601; from `SOURCE_DATE_EPOCH` when set).
        public static let buildTime = "buildTime"
        /// The tool that built it (`"seedbuild 0.1.0"`).
        public static let generator = "generator"
        /// Per source file: entity, file name, bytes, SHA-256, rows read, loaded and rejected.
        public static let sources = "sources"
        /// Entity name → rows stored.
        public static let rowCounts = "rowCounts"
        /// The SHA-256 of a canonical dump of the store's tables (`ContentDigest`).
        public static let contentDigest = "contentDigest"
        /// Reserved for a record of the store's verification; no build writes it today.
        public static let verification = "verification"
        /// A plain store converted from Core Data's layout: the conventions it came with (`docs/store-format.md`).
        public static let coreDataLayout = "coreDataLayout"
        /// The hashes a seed carried before ``StoreRestamp`` stamped it for an app's own model.
        public static let restampedFrom = "restampedFrom"
    }

    /// Every key and value, managed keys included.
    public var values: [String: JSONValue]

    /// Metadata of these values (``read(at:)`` reads a store's).
    public init(values: [String: JSONValue] = [:]) {
        self.values = values
    }

    /// The value of `key`, or nil; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Entity name → version hash.
    public var versionHashes: [String: Data] {
        (values[Key.versionHashes]?.objectValue ?? [:]).compactMapValues { $0.stringValue.flatMap(Data.init(hexString:)) }
    }

    /// Entity name → rows stored.
    public var rowCounts: [String: Int64] {
        (values[Key.rowCounts]?.objectValue ?? [:]).compactMapValues(\.integerValue)
    }

    /// The configuration the store holds.
    public var configuration: String? { values[Key.configuration]?.stringValue }
    /// The model's name.
    public var modelName: String? { values[Key.modelName]?.stringValue }
    /// The release's data version.
    public var dataVersion: Int64? { values[Key.dataVersion]?.integerValue }
    /// The store's UUID.
    public var storeUUID: String? { values[Key.storeUUID]?.stringValue }
    /// The store's content digest.
    public var contentDigest: String? { values[Key.contentDigest]?.stringValue }
}
