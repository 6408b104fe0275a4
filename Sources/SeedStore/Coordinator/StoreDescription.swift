import Foundation
import SeedModel

/// The kinds of store the coordinator can add.
///
/// Mirrors Core Data's store types: SQLite, in-memory, and the two atomic types, binary and XML,
/// which hold the whole store in memory and write it as one property-list file on save.
public enum StoreType: String, Sendable, Hashable, CaseIterable {
    case sqlite = "SQLite"
    case inMemory = "InMemory"
    case binary = "Binary"
    case xml = "XML"
}

/// SQLite's journal modes for a writable store file.
///
/// See [PRAGMA journal_mode](https://www.sqlite.org/pragma.html#pragma_journal_mode) and
/// [Write-Ahead Logging](https://www.sqlite.org/wal.html).
public enum SQLiteJournalMode: String, Sendable, Hashable, CaseIterable {
    /// Write-ahead log: readers go on while one connection writes, as in Core Data's SQLite stores.
    case wal = "WAL"
    /// A rollback journal, deleted after each transaction (SQLite's own default).
    case delete = "DELETE"
    case truncate = "TRUNCATE"
    case persist = "PERSIST"
}

/// How to add a store to a ``StoreCoordinator``: the equivalent of `NSPersistentStoreDescription`.
///
/// ```swift
/// var seed = StoreDescription(type: .sqlite, url: seedURL, configuration: "PostCodesConf")
/// seed.isReadOnly = true
/// let user = StoreDescription(type: .sqlite, url: userURL, configuration: "UserConf")
/// ```
public struct StoreDescription: Sendable, Hashable {
    /// The kind of store: SQLite, in-memory, or a binary or XML property list.
    public var type: StoreType
    /// The store's file; nil for an in-memory store.
    public var url: URL?
    /// The model configuration whose entities the store holds; nil means `Default` (every entity),
    /// which then allows no other store.
    public var configuration: String?
    /// Open `mode=ro&immutable=1`; every write fails.
    public var isReadOnly: Bool
    /// With ``shouldInferMappingAutomatically``: migrate an incompatible store when it is added.
    public var shouldMigrateStoreAutomatically: Bool
    /// With ``shouldMigrateStoreAutomatically``: infer the lightweight migration from the two models.
    public var shouldInferMappingAutomatically: Bool
    /// Where a migrated copy of a read-only store is written (the original is never changed).
    public var migrationCachesDirectory: URL?
    /// SQLite pragmas applied on opening, such as `["cache_size": "-8000"]`. A `journal_mode`
    /// here takes precedence over ``sqliteJournalMode``.
    public var sqlitePragmas: [String: String]
    /// The journal mode a writable SQLite store file is put in when it is added: ``SQLiteJournalMode/wal``
    /// by default. Read-only stores keep their file's mode (they open `immutable=1`, so take no locks).
    public var sqliteJournalMode: SQLiteJournalMode
    /// How long, in seconds, a statement waits for a lock that another connection or process holds
    /// before failing with "database is locked" (`SQLITE_BUSY`); 0 fails at once. 5 by default.
    /// See [sqlite3_busy_timeout](https://www.sqlite.org/c3ref/busy_timeout.html).
    public var sqliteBusyTimeout: TimeInterval
    /// The layout a store the runtime creates is laid out in (a store that exists keeps its own):
    /// `StoreLayout.plain` by default; `StoreLayout.coreData` makes a file Core Data opens too.
    /// SQLite and in-memory stores only: the atomic types keep the plain layout in their files.
    public var storeLayout: StoreLayout

    /// A description with every option; only `type` and `url` (for file stores) are usually needed.
    public init(
        type: StoreType = .sqlite,
        url: URL? = nil,
        configuration: String? = nil,
        isReadOnly: Bool = false,
        shouldMigrateStoreAutomatically: Bool = false,
        shouldInferMappingAutomatically: Bool = false,
        migrationCachesDirectory: URL? = nil,
        sqlitePragmas: [String: String] = [:],
        sqliteJournalMode: SQLiteJournalMode = .wal,
        sqliteBusyTimeout: TimeInterval = 5,
        storeLayout: StoreLayout = .plain
    ) {
        self.type = type
        self.url = url
        self.configuration = configuration
        self.isReadOnly = isReadOnly
        self.shouldMigrateStoreAutomatically = shouldMigrateStoreAutomatically
        self.shouldInferMappingAutomatically = shouldInferMappingAutomatically
        self.migrationCachesDirectory = migrationCachesDirectory
        self.sqlitePragmas = sqlitePragmas
        self.sqliteJournalMode = sqliteJournalMode
        self.sqliteBusyTimeout = sqliteBusyTimeout
        self.storeLayout = storeLayout
    }

    /// The configuration name the store is added with.
    public var configurationName: String { configuration ?? SeedModel.Configuration.defaultName }

    /// A short name for messages: the file name, or "in-memory store".
    public var displayName: String {
        url.map { $0.lastPathComponent } ?? "in-memory \(configurationName) store"
    }
}
