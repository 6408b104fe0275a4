import Foundation
package import GRDB
import SeedModel

/// Opening seed store files through GRDB, for the runtime: read-only and immutable for readers,
/// shared for stores other connections may be writing. (``StoreConnection`` opens them for the
/// installer and the metadata, without GRDB.)
package enum StoreDatabase {
    /// Opens an existing store read-only (`mode=ro&immutable=1`): no locks, no journal, no writes.
    /// - Throws: `StoreError` naming the file when it is missing or not SQLite.
    package static func openReadOnly(_ path: String) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.foreignKeysEnabled = false
        return try open(path, location: immutableURI(path), configuration: configuration)
    }

    /// The URI filename opening `path` read-only and immutable, for opening or `ATTACH`.
    package static func immutableURI(_ path: String) -> String { StoreConnection.immutableURI(path) }

    /// Opens an existing writable store to read it while other connections or processes may be
    /// writing it: locks are taken and waited for, and a write-ahead log is read (an immutable
    /// connection would ignore both).
    /// - Throws: `StoreError` naming the file when it is missing or not SQLite.
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

    /// Checks the header stamps of an open store (`StoreFile.checkSeedStore(_:)`).
    package static func checkSeedStore(_ db: Database, path: String) throws(StoreError) {
        try StoreFile.checkSeedStore(db.storeConnection(path: path))
    }

    /// The layout of an open store: Core Data's when it has `Z_METADATA` and no `seed_metadata`.
    package static func layout(of db: Database) throws(StoreError) -> StoreLayout {
        try StoreFile.layout(of: db.storeConnection())
    }

    /// Entity name → Core Data's entity number, from a store's `Z_PRIMARYKEY` (empty in the plain layout).
    package static func entityNumbers(in db: Database) throws(StoreError) -> [String: Int] {
        try StoreFile.entityNumbers(in: db.storeConnection())
    }
}

extension StoreDatabase {
    /// Refuses an output that is the source itself (the same path, spelled otherwise, or a hard link
    /// to it), for a command that promises to leave its source as it is (`seedbuild migrate`). The
    /// library's own migrations replace a file atomically and may write over their source, as the
    /// coordinator does to migrate a writable store in place.
    /// - Throws: `StoreError` (`refused`) naming both paths.
    package static func refuseWritingOver(source: String, output: String) throws(StoreError) {
        let same: Bool
        var sourceInfo = stat()
        var outputInfo = stat()
        if stat(source, &sourceInfo) == 0, stat(output, &outputInfo) == 0 {
            same = sourceInfo.st_dev == outputInfo.st_dev && sourceInfo.st_ino == outputInfo.st_ino
        } else {
            same = URL(fileURLWithPath: source).standardizedFileURL.path == URL(fileURLWithPath: output).standardizedFileURL.path
        }
        guard same else { return }
        throw StoreError(
            .refused, path: output,
            "is the store being read (\(source)); the source is never changed: write the result to another path (--out)")
    }
}

extension StoreMetadata {
    /// Reads the metadata of an open store in either layout.
    package static func read(from db: Database) throws(StoreError) -> StoreMetadata {
        try read(from: db.storeConnection())
    }

    /// Replaces the metadata of an open, writable store, in its layout's place.
    package func write(to db: Database) throws(StoreError) {
        try write(to: db.storeConnection())
    }

    /// Reads the metadata of a `.sqlite` file through an open queue, then closes it.
    static func read(at url: URL, in queue: DatabaseQueue) throws(StoreError) -> StoreMetadata {
        defer { try? queue.close() }
        do {
            return try queue.read { db in try StoreMetadata.read(in: db.storeConnection(path: url.path)) }
        } catch {
            throw StoreError(error, path: url.path, doing: "cannot read the metadata")
        }
    }
}

extension Database {
    /// This connection, for SeedInstall's SQL (metadata, header stamps, digests) on GRDB's thread.
    package func storeConnection(path: String? = nil) -> StoreConnection {
        guard let handle = sqliteConnection else { preconditionFailure("the database connection is closed") }
        return StoreConnection(borrowing: handle, path: path ?? description)
    }
}
