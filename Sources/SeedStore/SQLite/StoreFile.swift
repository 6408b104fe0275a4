import Foundation
package import GRDB
import SeedModel

/// Opening seed store files: read-only and immutable for readers, writable for builders.
public enum StoreFile {
    /// Opens an existing store read-only (`mode=ro&immutable=1`): no locks, no journal, no writes.
    /// - Throws: ``StoreError`` naming the file when it is missing or not SQLite.
    package static func openReadOnly(_ path: String) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.foreignKeysEnabled = false
        return try open(path, location: immutableURI(path), configuration: configuration)
    }

    /// The URI filename opening `path` read-only and immutable, for opening or `ATTACH`.
    package static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
        return "file:\(encoded)?mode=ro&immutable=1"
    }

    /// Opens an existing writable store to read it while other connections or processes may be
    /// writing it: locks are taken and waited for, and a write-ahead log is read (an immutable
    /// connection would ignore both).
    /// - Throws: ``StoreError`` naming the file when it is missing or not SQLite.
    static func openShared(_ path: String, busyTimeout: TimeInterval) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        configuration.busyMode = busyTimeout > 0 ? .timeout(busyTimeout) : .immediateError
        return try open(path, location: path, configuration: configuration)
    }

    /// Opens an existing file at `location` (its path or a URI for it) and reads its header.
    private static func open(_ path: String, location: String, configuration: GRDB.Configuration) throws(StoreError) -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.notFound, path: path, "no such file; check the path")
        }
        do {
            let queue = try DatabaseQueue(path: location, configuration: configuration)
            // Opening is lazy about the header; read it now so a non-SQLite file fails here.
            _ = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA schema_version") }
            return queue
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw StoreError(.notASeedStore, path: path, "not an SQLite database; give a seed store (.sqlite)")
        } catch {
            throw StoreError(error, path: path, doing: "cannot open the store")
        }
    }

    /// Folds a write-ahead log left beside a store file (by a process that ended without closing it)
    /// back into the file, so the file alone holds the store before it is copied.
    ///
    /// SQLite does this when the last connection closes; opening and closing one does it here.
    /// - Throws: ``StoreError`` (`refused`) when the log stays: another connection has the store open.
    static func foldWriteAheadLog(_ path: String) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path + "-wal") else { return }
        try? openShared(path, busyTimeout: 5).close()
        guard !FileManager.default.fileExists(atPath: path + "-wal") else {
            throw StoreError(.refused, path: path, "the store is open in another connection or process (its write-ahead log \(path)-wal is in use); close it first")
        }
    }

    /// Checks the header stamps of an open store: the seed store application id and a known format version.
    package static func checkSeedStore(_ db: Database, path: String) throws(StoreError) {
        let applicationID: Int32
        let formatVersion: Int32
        let hasMetadata: Bool
        do {
            applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            formatVersion = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            hasMetadata = try db.tableExists(StoreMetadata.tableName)
            // Core Data's layout keeps its metadata in Z_METADATA and leaves the header alone.
            if !hasMetadata, try StoreFile.layout(of: db) == .coreData { return }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw StoreError(.notASeedStore, path: path, "not an SQLite database; give a seed store (.sqlite)")
        } catch {
            throw StoreError(error, path: path, doing: "cannot read the store header")
        }
        guard applicationID == StoreMetadata.applicationID else {
            throw StoreError(
                .notASeedStore, path: path,
                String(format: "not a seed store: application_id is 0x%08X, seed stores have 0x%08X; build it with seedbuild", applicationID, StoreMetadata.applicationID))
        }
        guard formatVersion <= StoreMetadata.storeFormatVersion else {
            throw StoreError(
                .notASeedStore, path: path,
                "store format version \(formatVersion) is newer than this library reads (\(StoreMetadata.storeFormatVersion)); update seedbuild")
        }
        guard hasMetadata else {
            throw StoreError(.notASeedStore, path: path, "not a seed store: it has no \(StoreMetadata.tableName) table")
        }
    }
}

extension StoreFile {
    /// Refuses an output that is the source itself (the same path, spelled otherwise, or a hard link
    /// to it), for a command that promises to leave its source as it is (`seedbuild migrate`). The
    /// library's own migrations replace a file atomically and may write over their source, as the
    /// coordinator does to migrate a writable store in place.
    /// - Throws: ``StoreError`` (`refused`) naming both paths.
    public static func refuseWritingOver(source: String, output: String) throws(StoreError) {
        let same: Bool
        var sourceInfo = stat()
        var outputInfo = stat()
        if stat(source, &sourceInfo) == 0, stat(output, &outputInfo) == 0 {
            same = sourceInfo.st_dev == outputInfo.st_dev && sourceInfo.st_ino == outputInfo.st_ino
        } else {
            same = URL(fileURLWithPath: source).standardizedFileURL.path == URL(fileURLWithPath: output).standardizedFileURL.path
        }
        guard same else { return }
        throw StoreError(.refused, path: output, "is the store being read (\(source)); the source is never changed: write the result to another path (--out)")
    }

    /// Whether the file starts with SQLite's header ("SQLite format 3").
    public static func isSQLite(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\u{0}".utf8)
    }

    /// Whether the file starts with the gzip magic bytes.
    public static func isGzip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 2)) == Data([0x1F, 0x8B])
    }

    /// Inflates a `.sqlite.gz` to a temporary file, calls `body` with its path, then removes it.
    public static func withInflatedCopy<T>(
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

extension StoreMetadata {
    /// Reads a store's metadata without a coordinator, from a `.sqlite` or a `.sqlite.gz` (inflated
    /// to a temporary file, never into memory). A write-ahead log beside the file is read too (and
    /// folded into the file by SQLite when no other connection has the store open).
    /// - Throws: ``StoreError`` when the file is missing, not SQLite, not a seed store, or bad gzip.
    public static func read(at url: URL) throws(StoreError) -> StoreMetadata {
        // A log beside the file holds changes the file lacks, which an immutable connection would not
        // read. Such a store may be open, so only SQLite touches it: closing a descriptor opened here
        // to sniff the file's type would drop this process's locks on it.
        if FileManager.default.fileExists(atPath: url.path + "-wal") {
            return try read(at: url, in: StoreFile.openShared(url.path, busyTimeout: 5))
        }
        if AtomicStore.isPropertyList(url.path) {
            return try AtomicStore.metadata(in: AtomicStore.readPropertyList(at: url.path), path: url.path)
        }
        if StoreFile.isGzip(url.path) {
            return try StoreFile.withInflatedCopy(of: url.path) { path throws(StoreError) in
                try read(at: URL(fileURLWithPath: path))
            }
        }
        return try read(at: url, in: StoreFile.openReadOnly(url.path))
    }

    /// Reads the metadata of a `.sqlite` file through an open queue, then closes it.
    static func read(at url: URL, in queue: DatabaseQueue) throws(StoreError) -> StoreMetadata {
        defer { try? queue.close() }
        do {
            return try queue.read { db in
                try StoreFile.checkSeedStore(db, path: url.path)
                return try StoreMetadata.read(from: db)
            }
        } catch {
            throw StoreError(error, path: url.path, doing: "cannot read the metadata")
        }
    }

    /// These values with every key except the managed ones taken from `other`.
    func replacingCustomKeys(with other: StoreMetadata) -> StoreMetadata {
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
    /// The store-managed keys (``managedKeys``: type, UUID, hashes, digest, model) keep their stored values.
    /// The store is rewritten under a temporary name, synced and renamed into place, keeping its file mode,
    /// so a failure leaves the original untouched.
    public static func write(_ metadata: StoreMetadata, at url: URL) throws(StoreError) {
        let path = url.path
        try StoreFile.foldWriteAheadLog(path)
        if StoreFile.isGzip(path) {
            throw StoreError(.refused, path: path, "metadata of a compressed store cannot be changed: the artifact's checksum is in its manifest. Set it on the .sqlite before compressing")
        }
        let merged = try read(at: url).replacingCustomKeys(with: metadata)
        if AtomicStore.isPropertyList(path) {
            return try AtomicStore.writeMetadata(merged, at: path)
        }
        try AtomicFile.replace(path) { temporary throws(StoreError) in
            do {
                try FileManager.default.copyItem(atPath: path, toPath: temporary)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: temporary)
                let queue = try DatabaseQueue(path: temporary)
                try queue.write { db in try merged.write(to: db) }
                try queue.close()
            } catch {
                throw StoreError(error, path: path, doing: "cannot write the metadata")
            }
        }
    }
}

extension StoreFile {
    /// The model a store was built with (its `seed_model` table) and its configuration.
    package static func embeddedModel(_ db: Database, path: String) throws -> (model: Model, configuration: String) {
        if try layout(of: db) == .coreData { return try coreDataModel(db, path: path) }
        guard let row = try Row.fetchOne(db, sql: "SELECT configuration, model FROM \(StoreMetadata.modelTableName) LIMIT 1") else {
            throw StoreError(.notASeedStore, path: path, "the store has no embedded model (\(StoreMetadata.modelTableName)); rebuild it with seedbuild")
        }
        let configuration: String = row[0]
        let json: String = row[1]
        return (try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: path, version: "embedded")), configuration)
    }

    /// The layout of the store, from its embedded model.
    package static func embeddedSchema(_ db: Database, path: String) throws -> StoreSchema {
        let (model, configuration) = try embeddedModel(db, path: path)
        return try StoreSchema(model: model, configuration: configuration, layout: layout(of: db), conventions: CoreDataConventions.read(from: db))
    }

    /// The model of a store in Core Data's layout: the one seedbuild embedded in its metadata, else
    /// the one Core Data cached in `Z_MODELCACHE` (every entity, in the Default configuration).
    private static func coreDataModel(_ db: Database, path: String) throws -> (model: Model, configuration: String) {
        if let row = try Row.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA LIMIT 1"), let plist = row[0] as Data?,
            let list = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
            let json = list[StoreMetadata.CoreDataKey.model] as? String {
            let configuration = list[StoreMetadata.Key.configuration] as? String ?? SeedModel.Configuration.defaultName
            return (try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: path, version: "embedded")), configuration)
        }
        guard try db.tableExists("Z_MODELCACHE") else { throw CoreDataStoreFile.noCachedModel(path, table: false) }
        guard let blob = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE"), !blob.isEmpty else {
            throw CoreDataStoreFile.noCachedModel(path, table: true)
        }
        let model = try CoreDataStoreFile.model(fromCache: blob, name: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent, path: path)
        return (model, SeedModel.Configuration.defaultName)
    }
}
