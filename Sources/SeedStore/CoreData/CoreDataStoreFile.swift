import Foundation
internal import GRDB
import SeedModel

/// Reading what Core Data itself keeps in its SQLite stores.
public enum CoreDataStoreFile {
    /// The largest cached model inflated; real ones are tens of kilobytes.
    static let maximumModelBytes = 64 << 20

    /// The model Core Data cached in the store's `Z_MODELCACHE` table: raw DEFLATE of the
    /// compiled model's archive (`docs/model-json.md`, "Compiled models"), read like a `.mom`. Its hashes are those of the
    /// model the store was last opened with.
    ///
    /// ```swift
    /// let model = try CoreDataStoreFile.cachedModel(at: URL(fileURLWithPath: "Books.sqlite"))
    /// print(model.entityVersionHashes)
    /// ```
    /// The store is opened read-only and never changed; a non-empty `-wal` beside it is read too.
    /// - Throws: `StoreError` when the file is missing, not SQLite, has no cached model, or the
    ///   cache does not inflate; `ModelError` when the inflated archive is not a readable model.
    public static func cachedModel(at url: URL) throws -> Model {
        let path = url.path
        let queue = try open(path)
        defer { try? queue.close() }
        let blob: Data?
        do {
            blob = try queue.read { db in
                guard try db.tableExists("Z_MODELCACHE") else { throw noCachedModel(path, table: false) }
                return try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE")
            }
        } catch {
            throw StoreError(error, path: path, doing: "cannot read Z_MODELCACHE")
        }
        guard let blob, !blob.isEmpty else { throw noCachedModel(path, table: true) }
        return try model(fromCache: blob, name: url.deletingPathExtension().lastPathComponent, path: path)
    }

    /// A Core Data store that caches no model: it has no `Z_MODELCACHE` table (Core Data before
    /// iOS 8 / OS X 10.10 wrote none; a file without Z_METADATA is no Core Data store at all), or an empty one.
    static func noCachedModel(_ path: String, table: Bool) -> StoreError {
        let why =
            table ? "its Z_MODELCACHE table is empty" : "it has no Z_MODELCACHE table (Core Data before iOS 8 and OS X 10.10 wrote none)"
        return StoreError(
            .noModel, path: path,
            "the store caches no model: \(why); give the model it was written with (the app's .xcdatamodeld, .momd or .mom)")
    }

    /// The model in a `Z_MODELCACHE` blob.
    static func model(fromCache blob: Data, name: String, path: String) throws -> Model {
        let archive: Data
        do {
            archive = try RawInflate.inflate(blob, limit: maximumModelBytes)
        } catch {
            throw StoreError(.notASeedStore, path: path, "the model cached in Z_MODELCACHE does not inflate: \(error.reason)")
        }
        return try ModelLoader.load(
            compiledModel: archive, name: name,
            source: ModelSource(file: "\(path), the model cached in Z_MODELCACHE"))
    }

    /// Read-only; through the write-ahead log when one with content is beside the store, as Core
    /// Data leaves stores in use, else immutable so nothing is created beside the file.
    private static func open(_ path: String) throws(StoreError) -> DatabaseQueue {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "-wal")
        let wal = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        guard wal > 0 else { return try StoreDatabase.openReadOnly(path) }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path, doing: "cannot open the store")
        }
    }
}

extension StoreFile {
    /// Whether the file starts with SQLite's header ("SQLite format 3"): a store to read a cached
    /// model from, rather than a model file.
    package static func isSQLite(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\u{0}".utf8)
    }
}
