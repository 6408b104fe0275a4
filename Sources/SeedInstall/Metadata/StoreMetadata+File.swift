import Foundation

extension StoreMetadata {
    /// Reads a store's metadata without a coordinator, from a `.sqlite` in either layout, a
    /// `.sqlite.gz` (inflated to a temporary file, never into memory), or a binary or XML store. A
    /// write-ahead log beside the file is read too (and folded into the file by SQLite when no
    /// other connection has the store open).
    /// - Throws: ``StoreError`` when the file is missing, not SQLite, not a seed store, or bad gzip.
    public static func read(at url: URL) throws(StoreError) -> StoreMetadata {
        // A log beside the file holds changes the file lacks, which an immutable connection would not
        // read. Such a store may be open, so only SQLite touches it: closing a descriptor opened here
        // to sniff the file's type would drop this process's locks on it.
        if FileManager.default.fileExists(atPath: url.path + "-wal") {
            return try read(in: StoreConnection(path: url.path, mode: .shared(busyTimeout: 5)))
        }
        if PropertyListStoreFile.isPropertyList(url.path) {
            return try PropertyListStoreFile.metadata(at: url.path)
        }
        if StoreFile.isGzip(url.path) {
            return try StoreFile.withInflatedCopy(of: url.path) { path throws(StoreError) in
                try read(at: URL(fileURLWithPath: path))
            }
        }
        return try read(in: StoreConnection(path: url.path, mode: .immutable))
    }

    /// The metadata of a seed store, its header checked first.
    package static func read(in store: StoreConnection) throws(StoreError) -> StoreMetadata {
        try StoreFile.checkSeedStore(store)
        return try read(from: store)
    }

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

extension StoreFile {
    /// Folds a write-ahead log left beside a store file (by a process that ended without closing it)
    /// back into the file, so the file alone holds the store before it is copied.
    ///
    /// SQLite does this when the last connection closes; opening and closing one does it here.
    /// - Throws: ``StoreError`` (`refused`) when the log stays: another connection has the store open.
    package static func foldWriteAheadLog(_ path: String) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path + "-wal") else { return }
        _ = try? StoreConnection(path: path, mode: .shared(busyTimeout: 5))
        guard !FileManager.default.fileExists(atPath: path + "-wal") else {
            throw StoreError(
                .refused, path: path,
                "the store is open in another connection or process (its write-ahead log \(path)-wal is in use); close it first")
        }
    }
}
