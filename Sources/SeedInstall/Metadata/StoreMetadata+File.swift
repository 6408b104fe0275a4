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
