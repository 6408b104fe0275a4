import Foundation
import SeedModel

/// The metadata of a store in Core Data's layout: the `Z_METADATA` row's UUID and binary property
/// list (`docs/store-format.md`, "Core Data's layout"), to and from ``StoreMetadata``.
///
/// Core Data's keys carry the store type, the version hashes (32-byte data), the hashes version (3),
/// the model's version identifiers, the framework version, the auto-vacuum level, the version
/// checksum and the hashes digest. seedbuild's own keys (`dataVersion`, `rowCounts`, `sources`, …)
/// travel as extra keys of the same property list, in plain property-list values (Core Data keeps
/// keys it does not know); a JSON `null` has no property-list form and is left out.
package enum CoreDataMetadata {
    /// `NSPersistenceFrameworkVersion` written into new stores: a current framework's.
    package static let frameworkVersion = 1344
    /// `NSStoreModelVersionHashesVersion`: the hash encoding Core Data has used since 2010.
    package static let hashesVersion = 3

    /// Core Data's own keys, which ``StoreMetadata`` keys are mapped to and from.
    package enum Key {
        package static let storeType = "NSStoreType"
        package static let hashes = "NSStoreModelVersionHashes"
        package static let hashesVersion = "NSStoreModelVersionHashesVersion"
        package static let identifiers = "NSStoreModelVersionIdentifiers"
        package static let framework = "NSPersistenceFrameworkVersion"
        package static let autoVacuum = "_NSAutoVacuumLevel"
        package static let checksum = "NSStoreModelVersionChecksumKey"
        package static let digest = "NSStoreModelVersionHashesDigest"
        package static let all: Set<String> = [storeType, hashes, hashesVersion, identifiers, framework, autoVacuum, checksum, digest]
    }

    /// The `Z_PLIST` bytes for a store's metadata; the UUID goes in `Z_UUID`, not in the list.
    /// The same metadata gives the same bytes (keys sorted), so built stores are reproducible.
    /// - Parameter frameworkVersion: the version whose layout the store follows (a converted store keeps its source's).
    package static func propertyList(_ metadata: StoreMetadata, frameworkVersion: Int = frameworkVersion) throws -> Data {
        typealias Ours = StoreMetadata.Key
        var list: [String: PropertyListValue] = [:]
        for (key, value) in metadata.values
        where ![Ours.storeType, Ours.storeUUID, Ours.versionHashes, Ours.modelVersionIdentifiers, Ours.hashEncodingVersion].contains(key) {
            if let plist = propertyListValue(value) { list[key] = plist }
        }
        let hashes = metadata.versionHashes
        list[Key.storeType] = .string("SQLite")
        list[Key.hashes] = .dictionary(hashes.mapValues { .data(Array($0)) })
        list[Key.hashesVersion] = .integer(Int64(hashesVersion))
        list[Key.identifiers] = .array(
            (metadata[Ours.modelVersionIdentifiers]?.arrayValue?.compactMap(\.stringValue) ?? []).map(PropertyListValue.string))
        list[Key.framework] = .integer(Int64(frameworkVersion))
        list[Key.autoVacuum] = .string("2")
        list[Key.checksum] = .string(Model.versionChecksum(of: hashes))
        list[Key.digest] = .string(Model.versionHashesDigest(of: hashes))
        return Data(BinaryPropertyListWriter.write(.dictionary(list)))
    }

    /// Reads a `Z_PLIST` (and the row's `Z_UUID`) as ``StoreMetadata``: Core Data's keys under
    /// seedbuild's names, every other key as it is.
    /// - Throws: ``StoreError`` when the bytes are not a property list of metadata.
    package static func read(_ data: Data, uuid: String?, path: String) throws(StoreError) -> StoreMetadata {
        let parsed = try? PropertyListSerialization.propertyList(from: data, format: nil)
        guard let list = parsed as? [String: Any] else {
            throw StoreError(
                .notASeedStore, path: path, "Z_METADATA's property list cannot be read; the store is damaged or not Core Data's")
        }
        typealias Ours = StoreMetadata.Key
        var metadata = StoreMetadata()
        for (key, value) in list where !Key.all.contains(key) {
            if let json = try? JSONValue(propertyList: value) { metadata[key] = json }
        }
        metadata[Ours.storeType] = .string(list[Key.storeType] as? String ?? "SQLite")
        if let uuid { metadata[Ours.storeUUID] = .string(uuid) }
        let hashes = list[Key.hashes] as? [String: Data] ?? [:]
        metadata[Ours.versionHashes] = .object(hashes.mapValues { .string($0.hexString) })
        metadata[Ours.hashEncodingVersion] = .integer(Int64(Model.hashEncodingVersion))
        metadata[Ours.modelVersionIdentifiers] = .array((list[Key.identifiers] as? [String] ?? []).map(JSONValue.string))
        return metadata
    }

    /// A property-list value for a JSON value; nil for `null`, which has none.
    static func propertyListValue(_ value: JSONValue) -> PropertyListValue? {
        switch value {
        case .null: nil
        case .bool(let bool): .bool(bool)
        case .integer(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .string(text)
        case .array(let values): .array(values.compactMap(propertyListValue))
        case .object(let values): .dictionary(values.compactMapValues(propertyListValue))
        }
    }
}

extension JSONValue {
    /// A property-list value as JSON: data becomes base64 text, a date ISO 8601 text.
    init(propertyList value: Any) throws {
        switch value {
        case let data as Data: self = .string(data.base64EncodedString())
        case let date as Date: self = .string(ISO8601DateFormatter().string(from: date))
        case let array as [Any]: self = .array(try array.map(JSONValue.init(propertyList:)))
        case let object as [String: Any]: self = .object(try object.mapValues(JSONValue.init(propertyList:)))
        default: try self.init(foundation: value)
        }
    }
}
