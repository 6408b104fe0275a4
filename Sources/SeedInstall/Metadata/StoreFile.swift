import Foundation

/// Store files as files: what kind a file is, its header stamps and layout, and a compressed one inflated.
package enum StoreFile {
    /// Whether the file starts with the gzip magic bytes.
    package static func isGzip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 2)) == Data([0x1F, 0x8B])
    }

    /// Inflates a `.sqlite.gz` to a temporary file, calls `body` with its path, then removes it.
    package static func withInflatedCopy<T>(
        of path: String, maxBytes: Int64? = nil, _ body: (String) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("seedstore-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        do {
            try GzipInflater.inflate(path, to: temporary, maxOutputBytes: maxBytes)
        } catch {
            throw StoreError(.notASeedStore, path: path, error.reason)
        }
        return try body(temporary)
    }
}

extension StoreFile {
    /// The layout of an open store: Core Data's when it has `Z_METADATA` and no `seed_metadata`.
    package static func layout(of store: StoreConnection) throws(StoreError) -> StoreLayout {
        if try store.tableExists(StoreMetadata.tableName) { return .plain }
        return try store.tableExists("Z_METADATA") ? .coreData : .plain
    }

    /// The layout of a store file, opened immutable.
    package static func layout(at path: String) throws(StoreError) -> StoreLayout {
        try layout(of: StoreConnection(path: path, mode: .immutable))
    }

    /// Entity name → Core Data's entity number, from a store's `Z_PRIMARYKEY` (empty in the plain layout).
    package static func entityNumbers(in store: StoreConnection) throws(StoreError) -> [String: Int] {
        guard try store.tableExists("Z_PRIMARYKEY") else { return [:] }
        var numbers: [String: Int] = [:]
        try store.forEachRow("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY") { row in
            if case .text(let name) = row.value(0), case .integer(let number) = row.value(1) { numbers[name] = Int(number) }
        }
        return numbers
    }

    /// Checks the header stamps of an open store: the seed store application id and a known format
    /// version (the plain layout), or Core Data's `Z_METADATA` (which leaves the header alone).
    package static func checkSeedStore(_ store: StoreConnection) throws(StoreError) {
        let applicationID = try integer(store, "PRAGMA application_id")
        let formatVersion = try integer(store, "PRAGMA user_version")
        let hasMetadata = try store.tableExists(StoreMetadata.tableName)
        if !hasMetadata, try layout(of: store) == .coreData { return }
        guard applicationID == StoreMetadata.applicationID else {
            throw StoreError(
                .notASeedStore, path: store.path,
                String(
                    format: "not a seed store: application_id is 0x%08X, seed stores have 0x%08X; build it with seedbuild", applicationID,
                    StoreMetadata.applicationID))
        }
        guard formatVersion <= StoreMetadata.storeFormatVersion else {
            throw StoreError(
                .notASeedStore, path: store.path,
                "store format version \(formatVersion) is newer than this library reads (\(StoreMetadata.storeFormatVersion)); update seedbuild"
            )
        }
        guard hasMetadata else {
            throw StoreError(.notASeedStore, path: store.path, "not a seed store: it has no \(StoreMetadata.tableName) table")
        }
    }

    private static func integer(_ store: StoreConnection, _ sql: String) throws(StoreError) -> Int32 {
        guard case .integer(let value)? = try store.rows(sql).first?.first else { return 0 }
        return Int32(truncatingIfNeeded: value)
    }
}
