import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `.current` records of an installed store's file when it is installed, so that a later delta
/// knows the store is unchanged without reading it: its size, inode, modification and status-change
/// times (to the nanosecond), and SQLite's 100-byte header. Any write to the file moves its times (and
/// a write through SQLite its header's change counter); a file put in its place has another inode.
/// A store whose stamp differs is checked the old way, by reading it whole.
struct StoreStamp: Equatable {
    var size: Int64
    var inode: UInt64
    var modified: [Int64]
    var changed: [Int64]
    /// SQLite's header, hex.
    var header: String

    /// The file's stamp now; nil when it cannot be read.
    init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100 else { return nil }
        size = Int64(status.st_size)
        inode = UInt64(status.st_ino)
        #if canImport(Darwin)
            modified = [Int64(status.st_mtimespec.tv_sec), Int64(status.st_mtimespec.tv_nsec)]
            changed = [Int64(status.st_ctimespec.tv_sec), Int64(status.st_ctimespec.tv_nsec)]
        #else
            modified = [Int64(status.st_mtim.tv_sec), Int64(status.st_mtim.tv_nsec)]
            changed = [Int64(status.st_ctim.tv_sec), Int64(status.st_ctim.tv_nsec)]
        #endif
        self.header = header.hexString
    }

    init?(json: JSONValue?) {
        guard let object = json?.objectValue, let size = object["size"]?.integerValue,
            let inode = object["inode"]?.stringValue.flatMap({ UInt64($0) }),
            let modified = object["modified"]?.arrayValue?.compactMap(\.integerValue), modified.count == 2,
            let changed = object["changed"]?.arrayValue?.compactMap(\.integerValue), changed.count == 2,
            let header = object["header"]?.stringValue, header.count == 200
        else { return nil }
        (self.size, self.inode, self.modified, self.changed, self.header) = (size, inode, modified, changed, header)
    }

    var json: JSONValue {
        .object([
            "size": .integer(size), "inode": .string(String(inode)), "modified": .array(modified.map(JSONValue.integer)),
            "changed": .array(changed.map(JSONValue.integer)), "header": .string(header),
        ])
    }

    /// Whether the store at `path` is known unchanged since `self` was taken: the same stamp, no write
    /// permission on it, and no journal or write-ahead log beside it.
    func holds(for path: String) -> Bool {
        var status = stat()
        guard StoreStamp(path: path) == self, lstat(path, &status) == 0, status.st_mode & 0o222 == 0 else { return false }
        return InstallRecord.sidecarSuffixes.allSatisfy { lstat(path + $0, &status) != 0 }
    }
}
