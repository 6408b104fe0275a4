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
        public static let storeType = "storeType"
        public static let storeUUID = "storeUUID"
        public static let modelName = "modelName"
        public static let modelVersionIdentifiers = "modelVersionIdentifiers"
        public static let configuration = "configuration"
        public static let versionHashes = "versionHashes"
        public static let hashEncodingVersion = "hashEncodingVersion"
        package static let storeFormatVersion = "storeFormatVersion"
        public static let dataVersion = "dataVersion"
        public static let buildTime = "buildTime"
        public static let generator = "generator"
        public static let sources = "sources"
        public static let rowCounts = "rowCounts"
        public static let contentDigest = "contentDigest"
        public static let verification = "verification"
        /// A plain store converted from Core Data's layout: the conventions it came with (`docs/store-format.md`).
        public static let coreDataLayout = "coreDataLayout"
        /// The hashes a seed carried before ``StoreRestamp`` stamped it for an app's own model.
        public static let restampedFrom = "restampedFrom"
    }

    /// Keys the store manages itself; ``write(_:at:)`` never changes them.
    package static let managedKeys: Set<String> = [
        Key.storeType, Key.storeUUID, Key.versionHashes, Key.hashEncodingVersion, Key.storeFormatVersion,
        Key.contentDigest, Key.modelName, Key.modelVersionIdentifiers, Key.configuration, Key.coreDataLayout,
    ]

    public var values: [String: JSONValue]

    public init(values: [String: JSONValue] = [:]) {
        self.values = values
    }

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

    public var configuration: String? { values[Key.configuration]?.stringValue }
    public var modelName: String? { values[Key.modelName]?.stringValue }
    public var dataVersion: Int64? { values[Key.dataVersion]?.integerValue }
    public var storeUUID: String? { values[Key.storeUUID]?.stringValue }
    public var contentDigest: String? { values[Key.contentDigest]?.stringValue }
}
