import Foundation
import SeedInstall

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension StoreMetadata {
    /// Keys the store manages itself; ``write(_:at:)`` never changes them.
    package static let managedKeys: Set<String> = [
        Key.storeType, Key.storeUUID, Key.versionHashes, Key.hashEncodingVersion, Key.storeFormatVersion,
        Key.contentDigest, Key.modelName, Key.modelVersionIdentifiers, Key.configuration, Key.coreDataLayout,
    ]

    /// These values with every key except the managed ones taken from `other`.
    package func replacingCustomKeys(with other: StoreMetadata) -> StoreMetadata {
        var merged = self
        for (key, value) in other.values where !Self.managedKeys.contains(key) {
            merged.values[key] = value
        }
        for key in merged.values.keys where !Self.managedKeys.contains(key) && other.values[key] == nil {
            merged.values[key] = nil
        }
        return merged
    }

    /// Sets custom metadata keys of an uncompressed store, like Core Data's `setMetadata(_:forPersistentStoreOfType:at:)`.
    ///
    /// The store-managed keys (`managedKeys`: type, UUID, hashes, digest, model) keep their stored values.
    /// The store is rewritten under a temporary name, synced and renamed into place, keeping its file mode,
    /// so a failure leaves the original untouched.
    public static func write(_ metadata: StoreMetadata, at url: URL) throws(StoreError) {
        let path = url.path
        try StoreFile.foldWriteAheadLog(path)
        if StoreFile.isGzip(path) {
            throw StoreError(
                .refused, path: path,
                "metadata of a compressed store cannot be changed: the artifact's checksum is in its manifest. Set it on the .sqlite before compressing"
            )
        }
        let merged = try read(at: url).replacingCustomKeys(with: metadata)
        if PropertyListStoreFile.isPropertyList(path) {
            return try PropertyListStoreFile.writeMetadata(merged, at: path)
        }
        try AtomicFile.replace(path) { temporary throws(StoreError) in
            do {
                try FileManager.default.copyItem(atPath: path, toPath: temporary)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: temporary)
            } catch {
                throw StoreError(.io, path: path, "cannot copy the store to write its metadata: \(error.localizedDescription)")
            }
            let store = try StoreConnection(path: temporary, mode: .writable)
            try store.inTransaction { () throws(StoreError) in try merged.write(to: store) }
        }
    }
}

extension PropertyListStoreFile {
    /// Rewrites a binary or XML store file with new metadata, keeping its format and rows.
    package static func writeMetadata(_ metadata: StoreMetadata, at path: String) throws(StoreError) {
        var plist = try readPropertyList(at: path)
        plist["metadata"] = JSONValue.object(metadata.values).jsonText
        let isXML = (try? Data(contentsOf: URL(fileURLWithPath: path)).starts(with: Data("<?xml".utf8))) ?? false
        try AtomicFile.replace(path) { temporary throws(StoreError) in
            guard let data = try? PropertyListSerialization.data(fromPropertyList: plist, format: isXML ? .xml : .binary, options: 0),
                FileManager.default.createFile(atPath: temporary, contents: data)
            else { throw AtomicFile.ioError(temporary, "cannot write the store file") }
        }
    }
}

extension AtomicFile {
    /// Calls `body` with a temporary path to write, then syncs and renames it to `path`, keeping the old file's mode.
    package static func replace(_ path: String, mode: mode_t? = nil, _ body: (String) throws(StoreError) -> Void) throws(StoreError) {
        let temporary = temporaryPath(for: path)
        do {
            try body(temporary)
            let existingMode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint16Value
            try commit(temporary, to: path, mode: mode ?? existingMode.map { mode_t($0) })
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
