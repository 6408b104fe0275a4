import Foundation

/// The file of a binary or XML store (``StoreMetadata/read(at:)`` reads its metadata like any
/// store's): one property list, `{"metadata": JSON text, "configuration": …, "model": JSON text,
/// "tables": {name: [row]}}`. The runtime's atomic store loads and writes the rows.
package enum PropertyListStoreFile {
    /// Reads a binary or XML store file's property list.
    package static func readPropertyList(at path: String) throws(StoreError) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.notFound, path: path, "no such store file; check the path")
        }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            plist["metadata"] is String, plist["tables"] is [String: Any]
        else {
            throw StoreError(.notASeedStore, path: path, "not a binary or XML seed store: no metadata and tables in its property list")
        }
        return plist
    }

    /// Whether a file starts like a property list (binary `bplist` or XML).
    package static func isPropertyList(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 6)) ?? Data()
        return head == Data("bplist".utf8) || head.starts(with: Data("<?xml".utf8))
    }

    /// The metadata of a binary or XML store file.
    package static func metadata(at path: String) throws(StoreError) -> StoreMetadata {
        try metadata(in: readPropertyList(at: path), path: path)
    }

    package static func metadata(in plist: [String: Any], path: String) throws(StoreError) -> StoreMetadata {
        guard let text = plist["metadata"] as? String, case .object(let values)? = try? JSONValue(jsonText: text),
            values[StoreMetadata.Key.versionHashes]?.objectValue != nil
        else {
            throw StoreError(
                .notASeedStore, path: path,
                "the store's metadata is not a JSON object with versionHashes; it is damaged or not written by seedbuild")
        }
        return StoreMetadata(values: values)
    }
}
