import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// Transient relationships across stores, as in Core Data's "Linking Data Between Two Core Data
/// Stores": reading sessions in a writable store point at books of a read-only seed store. Nothing
/// is saved for them; the context keeps them.
@Suite("Transient relationships: across stores, kept by the context")
struct TransientRelationshipTests {
    /// Books in "Seed"; reading sessions in "Memory", each with a transient `book` (inverse
    /// `Book.sessions`), a transient `shelf` of books without inverse, and a transient one-to-one
    /// `next` / `previous` within its own store.
    private static func model(bookRule: String = "Nullify") throws -> Model {
        try ModelLoader.load(
            json: Data(
                """
                {"name": "Library", "configurations": [{"name": "Seed", "entities": ["Book"]}, {"name": "Memory", "entities": ["ReadingSession"]}],
                 "entities": [
                  {"name": "Book", "attributes": [{"name": "isbn", "type": "String", "optional": false}, {"name": "title", "type": "String"}],
                   "relationships": [{"name": "sessions", "destination": "ReadingSession", "inverse": "book", "toMany": true, "transient": true}]},
                  {"name": "ReadingSession", "attributes": [{"name": "minutes", "type": "Integer 32", "optional": false, "default": "0"}],
                   "relationships": [{"name": "book", "destination": "Book", "inverse": "sessions", "deleteRule": "\(bookRule)", "transient": true},
                                     {"name": "shelf", "destination": "Book", "toMany": true, "transient": true},
                                     {"name": "next", "destination": "ReadingSession", "inverse": "previous", "transient": true},
                                     {"name": "previous", "destination": "ReadingSession", "inverse": "next", "transient": true}]}]}
                """.utf8), source: ModelSource(file: "library.json"))
    }

    /// A coordinator with the seed (two books, written first, then added read-only) and a user
    /// store: in memory, or the file `user.sqlite` when `userFile` is set.
    private static func library(_ directory: TemporaryDirectory, layout: StoreLayout, bookRule: String = "Nullify", userFile: Bool = false)
        throws -> StoreCoordinator
    {
        let model = try model(bookRule: bookRule)
        let seedURL = directory.url("seed.sqlite")
        if !FileManager.default.fileExists(atPath: seedURL.path) {
            let writer = StoreCoordinator(model: model)
            try writer.addStore(StoreDescription(type: .sqlite, url: seedURL, configuration: "Seed", storeLayout: layout))
            let context = ObjectContext(coordinator: writer)
            for (isbn, title) in [("1", "Dune"), ("2", "Emma")] {
                let book = try context.insert(entity: "Book")
                book["isbn"] = .text(isbn)
                book["title"] = .text(title)
            }
            try context.save()
        }
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: seedURL, configuration: "Seed", isReadOnly: true))
        try coordinator.addStore(
            StoreDescription(
                type: userFile ? .sqlite : .inMemory, url: userFile ? directory.url("user.sqlite") : nil, configuration: "Memory",
                storeLayout: layout))
        return coordinator
    }

    private static func book(_ isbn: String, in context: ObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entity: "Book", predicate: FetchPredicate("isbn == %@", isbn))).first)
    }

    private static func session(minutes: Int64, in context: ObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entity: "ReadingSession", predicate: FetchPredicate("minutes == %@", minutes))).first)
    }

    private static func same(_ objects: [ManagedObject], _ expected: [ManagedObject]) -> Bool {
        objects.map(ObjectIdentifier.init) == expected.map(ObjectIdentifier.init)
    }

    @Test(arguments: [StoreLayout.plain, .coreData])
    func linksAcrossStoresLiveInTheContext(layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.library(directory, layout: layout)
        let context = ObjectContext(coordinator: coordinator)
        let dune = try Self.book("1", in: context)
        let emma = try Self.book("2", in: context)
        let first = try context.insert(entity: "ReadingSession")
        first["minutes"] = 30
        try first.setObject(dune, forRelationship: "book")
        let second = try context.insert(entity: "ReadingSession")
        second["minutes"] = 45
        try dune.addObject(second, toRelationship: "sessions")
        try first.addObject(dune, toRelationship: "shelf")
        try first.addObject(emma, toRelationship: "shelf")
        try first.removeObject(emma, fromRelationship: "shelf")

        #expect(try first.object(forRelationship: "book") === dune)
        #expect(try second.object(forRelationship: "book") === dune, "adding to the inverse to-many sets the to-one")
        #expect(try dune.objects(forRelationship: "sessions").map { try $0.integer("minutes") } == [30, 45])
        #expect(try Self.same(first.objects(forRelationship: "shelf"), [dune]))
        #expect(!dune.hasChanges, "a transient link is no change to save, so a read-only store's object can take one")

        try context.save()
        #expect(!first.objectID.isTemporary)
        #expect(try first.object(forRelationship: "book") === dune, "a save keeps transient values in the context")
        #expect(try dune.objects(forRelationship: "sessions").count == 2)
        #expect(try Self.same(first.objects(forRelationship: "shelf"), [dune]))

        try first.setObject(emma, forRelationship: "book")
        #expect(
            try Self.same(dune.objects(forRelationship: "sessions"), [second])
                && Self.same(emma.objects(forRelationship: "sessions"), [first]))
        context.rollback()
        #expect(try first.object(forRelationship: "book") === dune, "a rollback returns to the links of the last save")
        #expect(try emma.objects(forRelationship: "sessions").isEmpty)

        let other = ObjectContext(coordinator: coordinator)
        #expect(try Self.session(minutes: 30, in: other).object(forRelationship: "book") == nil, "another context has none")
        #expect(try Self.book("1", in: other).objects(forRelationship: "sessions").isEmpty)

        context.reset()
        #expect(try first.object(forRelationship: "book") == nil, "an object from before the reset is in no context")
        let refetched = try Self.session(minutes: 30, in: context)
        #expect(refetched !== first)
        #expect(try refetched.object(forRelationship: "book") == nil && refetched.objects(forRelationship: "shelf").isEmpty)
        #expect(try Self.book("1", in: context).objects(forRelationship: "sessions").isEmpty)
    }

    @Test(arguments: [StoreLayout.plain, .coreData])
    func reopenedStoresHaveNoLinksAndNoColumnsForThem(layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        do {
            let context = ObjectContext(coordinator: try Self.library(directory, layout: layout, userFile: true))
            let session = try context.insert(entity: "ReadingSession")
            session["minutes"] = 30
            try session.setObject(try Self.book("1", in: context), forRelationship: "book")
            try session.addObject(try Self.book("2", in: context), toRelationship: "shelf")
            try context.save()
        }
        let context = ObjectContext(coordinator: try Self.library(directory, layout: layout, userFile: true))
        let session = try Self.session(minutes: 30, in: context)
        #expect(try session.object(forRelationship: "book") == nil)
        #expect(try session.objects(forRelationship: "shelf").isEmpty)

        for file in ["seed.sqlite", "user.sqlite"] {
            let queue = try StoreDatabase.openReadOnly(directory.url(file).path)
            defer { try? queue.close() }
            let names = try queue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'").flatMap { table in
                    [table] + (try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoteIdentifier(table)))").map { $0["name"] as String })
                }
            }
            let stray = names.filter { name in
                ["book", "shelf", "sessions", "next", "previous", "fok"].contains { name.lowercased().contains($0) }
            }
            // Only the Book table itself may say "book".
            #expect(stray.allSatisfy { ["Book", "ZBOOK"].contains($0) }, "\(file): \(stray)")
        }
    }

    @Test func aOneToOneWithinAStoreKeepsBothSidesInStep() throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try Self.library(directory, layout: .plain))
        let sessions = try (1...3).map { minutes in
            let session = try context.insert(entity: "ReadingSession")
            session["minutes"] = .integer(Int64(minutes))
            return session
        }
        try sessions[0].setObject(sessions[1], forRelationship: "next")
        #expect(try sessions[1].object(forRelationship: "previous") === sessions[0])
        try sessions[2].setObject(sessions[0], forRelationship: "previous")
        #expect(try sessions[0].object(forRelationship: "next") === sessions[2])
        #expect(try sessions[1].object(forRelationship: "previous") == nil, "the former partner lets go")
        try sessions[0].setObject(nil, forRelationship: "next")
        #expect(try sessions[2].object(forRelationship: "previous") == nil)
    }

    @Test(arguments: [StoreLayout.plain, .coreData])
    func deletingTheSeedSideNullifiesInTheContext(layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try Self.library(directory, layout: layout))
        let dune = try Self.book("1", in: context)
        let session = try context.insert(entity: "ReadingSession")
        try session.setObject(dune, forRelationship: "book")
        try session.addObject(dune, toRelationship: "shelf")
        try context.save()

        context.delete(dune)
        #expect(try session.object(forRelationship: "book") == nil, "Book.sessions nullifies the inverse")
        #expect(try session.objects(forRelationship: "shelf").isEmpty, "nothing points at a deleted object")
        let refused = try #require(throws: StoreError.self) { try context.save() }
        #expect(refused.description.contains("read-only") && refused.description.contains("Book"))
        context.rollback()
        #expect(try session.object(forRelationship: "book") === dune)
    }

    @Test func denyRefusesTheSaveUntilUnlinked() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.library(directory, layout: .plain, bookRule: "Deny")
        let context = ObjectContext(coordinator: coordinator)
        let dune = try Self.book("1", in: context)
        let session = try context.insert(entity: "ReadingSession")
        session["minutes"] = 30
        try session.setObject(dune, forRelationship: "book")
        try context.save()

        context.delete(session)
        #expect(try session.object(forRelationship: "book") === dune)
        let denied = try #require(throws: ContextError.self) { try context.save() }
        #expect(denied.kind == .validation)
        #expect(denied.description.contains("ReadingSession.book has the Deny rule and still holds 1 Book object"), "\(denied)")
        context.rollback()
        try session.setObject(nil, forRelationship: "book")
        context.delete(session)
        try context.save()
        #expect(try ObjectContext(coordinator: coordinator).count(FetchRequest(entity: "ReadingSession")) == 0)
        #expect(try dune.objects(forRelationship: "sessions").isEmpty)
    }

    /// Cascade is tried, as Core Data would: into a read-only store the save then refuses.
    @Test func cascadeIntoTheSeedIsRefusedBySaving() throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try Self.library(directory, layout: .plain, bookRule: "Cascade"))
        let dune = try Self.book("1", in: context)
        let session = try context.insert(entity: "ReadingSession")
        try session.setObject(dune, forRelationship: "book")
        try context.save()

        context.delete(session)
        #expect(dune.isDeleted)
        let refused = try #require(throws: StoreError.self) { try context.save() }
        #expect(refused.description.contains("read-only") && refused.description.contains("Book"))
        context.rollback()
        #expect(!dune.isDeleted && !session.isDeleted)
        #expect(try session.object(forRelationship: "book") === dune)
    }

    @Test(arguments: [
        (
            "ReadingSession", "book.title == 'Dune'",
            "ReadingSession.book is a transient relationship and not stored; it cannot be used in a fetch"
        ),
        ("ReadingSession", "ANY shelf.isbn == '1'", "ReadingSession.shelf is a transient relationship"),
        ("ReadingSession", "next == nil", "ReadingSession.next is a transient relationship"),
        ("Book", "sessions.@count > 0", "Book.sessions is a transient relationship"),
    ])
    func fetchesCannotUseThem(entity: String, format: String, message: String) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try Self.library(directory, layout: .coreData))
        let error = try #require(throws: FetchPredicateError.self) {
            try context.fetch(FetchRequest(entity: entity, predicate: FetchPredicate(format)))
        }
        #expect(error.description.contains(message), "\(error)")
    }
}
