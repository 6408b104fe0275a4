import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// SQLite as apps meet it: several writers on one user store, and other processes holding its lock.
@Suite("Store coordinator: concurrent writers, WAL and busy timeout")
struct ConcurrentSaveTests {
    let directory = TemporaryDirectory()
    var url: URL { directory.url("notes.sqlite") }

    func notesContext(busyTimeout: TimeInterval = 5) throws -> ObjectContext {
        try Self.notesContext(url, busyTimeout: busyTimeout)
    }

    /// A coordinator of its own with the notes store at `url` (contexts are not shared across tasks).
    static func notesContext(_ url: URL, busyTimeout: TimeInterval = 5) throws -> ObjectContext {
        let coordinator = StoreCoordinator(model: try shopModel())
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url, configuration: "Notes", sqliteBusyTimeout: busyTimeout))
        return ObjectContext(coordinator: coordinator)
    }

    static func insertNote(_ context: ObjectContext, _ text: String) throws {
        let note = try context.insert(entity: "Note")
        note["productSKU"] = "A-1"
        note["text"] = StoreValue.text(text)
    }

    @Test func eightWritersSavingToOneStoreAllSucceedAndLoseNothing() throws {
        _ = try notesContext()
        let writers = 8, saves = 15, notesPerSave = 3
        // A thread each, so all eight write at once whatever else holds the shared task pool's threads.
        let url = url
        let failures = Failures()
        let done = DispatchGroup()
        for writer in 0..<writers {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    let context = try Self.notesContext(url)
                    for save in 0..<saves {
                        for note in 0..<notesPerSave { try Self.insertNote(context, "writer \(writer) save \(save) note \(note)") }
                        try context.save()
                    }
                } catch {
                    failures.add("writer \(writer): \(error)")
                }
            }
        }
        done.wait()
        #expect(failures.all == [])
        // Read while no connection is open: closing a descriptor of the file drops the process's SQLite locks.
        #expect(try Data(contentsOf: url)[18] == 2, "a writable store is in WAL mode")
        let texts = try notesContext().fetch(FetchRequest(entity: "Note")).compactMap { try $0.string("text") }
        #expect(texts.count == writers * saves * notesPerSave)
        #expect(Set(texts).count == texts.count, "every note saved once")
    }

    @Test func saveWaitsForAnotherProcessHoldingTheWriteLock() throws {
        let context = try notesContext()
        try Self.insertNote(context, "before the lock")
        try context.save()

        let locked = directory.url("locked")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        shell.arguments = ["sqlite3", url.path]
        let input = Pipe()
        shell.standardInput = input
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\n.shell touch '\(locked.path)'\n.shell sleep 2\nCOMMIT;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        defer { shell.waitUntilExit() }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: locked.path), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try #require(FileManager.default.fileExists(atPath: locked.path), "sqlite3 took the write lock")

        let impatient = try notesContext(busyTimeout: 0)
        try Self.insertNote(impatient, "without waiting")
        let refused = try #require(throws: StoreError.self) { try impatient.save() }
        #expect(refused.description.contains("locked"), "\(refused.description)")

        let started = Date()
        try Self.insertNote(context, "after waiting")
        try context.save()
        #expect(Date().timeIntervalSince(started) > 1, "the save waited for the lock")
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let texts = try notesContext().fetch(FetchRequest(entity: "Note")).compactMap { try $0.string("text") }.sorted()
        #expect(texts == ["after waiting", "before the lock"])
    }

    @Test func journalModeIsSettableAndAClosedStoreLeavesNoLog() throws {
        do {
            let context = try notesContext()
            try Self.insertNote(context, "in WAL mode")
            try context.save()
            #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        }
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "closing folds the log into the file")
        #expect(try Data(contentsOf: url)[18] == 2)

        let rollback = directory.url("rollback.sqlite")
        do {
            let coordinator = StoreCoordinator(model: try shopModel())
            try coordinator.addStore(StoreDescription(type: .sqlite, url: rollback, configuration: "Notes", sqliteJournalMode: .delete))
            let context = ObjectContext(coordinator: coordinator)
            try Self.insertNote(context, "with a rollback journal")
            try context.save()
        }
        #expect(try Data(contentsOf: rollback)[18] == 1)

        // The WAL-mode file still opens read-only and immutable, as a seed does.
        let reader = StoreCoordinator(model: try shopModel())
        try reader.addStore(StoreDescription(type: .sqlite, url: url, configuration: "Notes", isReadOnly: true))
        #expect(try ObjectContext(coordinator: reader).count(FetchRequest(entity: "Note")) == 1)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))
    }

    @Test func aLeftoverLogIsReadAndFoldedInAndALiveOneIsNeverCopiedPast() throws {
        let coordinator = StoreCoordinator(model: try shopModel())
        let store = try coordinator.addStore(StoreDescription(type: .sqlite, url: url, configuration: "Notes"))
        let context = ObjectContext(coordinator: coordinator)
        var metadata = coordinator.metadata(for: store)
        metadata["appVersion"] = "7"
        coordinator.setMetadata(metadata, for: store)
        try Self.insertNote(context, "only in the log")
        try context.save()

        // What a process that ended without closing the store leaves: the file and its log.
        let crashed = directory.url("crashed.sqlite")
        try FileManager.default.copyItem(atPath: url.path, toPath: crashed.path)
        try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: crashed.path + "-wal")
        #expect(try StoreMetadata.read(at: crashed)["appVersion"] == "7", "the log is read")
        var changed = try StoreMetadata.read(at: crashed)
        changed["appVersion"] = "8"
        try StoreMetadata.write(changed, at: crashed)
        #expect(!FileManager.default.fileExists(atPath: crashed.path + "-wal"))
        #expect(try StoreMetadata.read(at: crashed)["appVersion"] == "8")
        #expect(
            try Self.notesContext(crashed).fetch(FetchRequest(entity: "Note")).compactMap { try $0.string("text") } == ["only in the log"])

        // The store this coordinator holds open is not rewritten under it.
        let refused = try #require(throws: StoreError.self) { try StoreMetadata.write(changed, at: url) }
        #expect(refused.description.contains("open in another connection"), "\(refused.description)")
        #expect(try context.count(FetchRequest(entity: "Note")) == 1)
    }

    @Test func aWALStoreMovedWithMigrateStoreKeepsWorking() throws {
        let moved = directory.url("moved/notes.sqlite")
        do {
            let coordinator = StoreCoordinator(model: try shopModel())
            let store = try coordinator.addStore(StoreDescription(type: .sqlite, url: url, configuration: "Notes"))
            let context = ObjectContext(coordinator: coordinator)
            try Self.insertNote(context, "first")
            try context.save()
            try coordinator.migrateStore(store, to: moved, type: .sqlite)
            try Self.insertNote(context, "second")
            try context.save()
            #expect(try context.count(FetchRequest(entity: "Note")) == 2)
        }
        for file in [url, moved] {
            #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"), "\(file.lastPathComponent) was closed cleanly")
        }
        #expect(try Data(contentsOf: moved)[18] == 2)
        #expect(try Self.notesContext(moved).count(FetchRequest(entity: "Note")) == 2)
        #expect(try Self.notesContext(url).count(FetchRequest(entity: "Note")) == 1, "the old file keeps what it had")
    }
}

/// Errors collected from writer threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.withLock { list.append(failure) } }
    var all: [String] { lock.withLock { list } }
}
