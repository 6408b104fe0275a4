import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// Which name a self-referential many-to-many's join table has (`docs/store-format.md`,
/// "Self-referential join tables"): a new store has the table under the name that sorts last and a
/// view under the other, both reading the same rows; a converted store keeps the names its source has.
@Suite("Self-referential join tables under both names")
struct SelfReferentialNameTests {
    private let directory = TemporaryDirectory()

    private var model: Model {
        get throws { try ModelLoader.load(json: Data(SelfReferentialTests.model.utf8), source: ModelSource(file: "people.json")) }
    }

    /// A store in Core Data's layout the runtime made: Ada is similar to Grace and Alan, Grace to Alan.
    private func makeStore(_ name: String) throws -> String {
        let url = directory.url(name)
        let coordinator = StoreCoordinator(model: try model)
        let store = try coordinator.addStore(StoreDescription(url: url, sqliteJournalMode: .delete, storeLayout: .coreData))
        let context = ObjectContext(coordinator: coordinator)
        var people: [String: ManagedObject] = [:]
        for name in ["Ada", "Grace", "Alan", "Edsger"] {
            people[name] = try context.insert(entity: "Person")
            people[name]!["name"] = .text(name)
        }
        for (from, to) in [("Ada", "Grace"), ("Ada", "Alan"), ("Grace", "Alan")] {
            try people[from]!.addObject(people[to]!, toRelationship: "similar")
        }
        try context.save()
        try coordinator.removeStore(store)
        return url.path
    }

    /// `type name` of every table and view named as a join table.
    private func joinObjects(_ path: String) throws -> [String] {
        try StoreDatabase.openReadOnly(path).read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT type || ' ' || name FROM sqlite_master WHERE name GLOB 'Z_1SIMILAR*' AND type IN ('table', 'view') ORDER BY name"
            )
        }
    }

    /// The pairs `name` holds, as "similar-to side → similar side".
    private func pairs(_ path: String, in name: String) throws -> [String] {
        try StoreDatabase.openReadOnly(path).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.ZNAME, b.ZNAME FROM \(name) AS j JOIN ZPERSON AS a ON a.Z_PK = j.Z_1SIMILARTO
                    JOIN ZPERSON AS b ON b.Z_PK = j.Z_1SIMILAR ORDER BY 1, 2
                    """
            ).map { "\($0[0] as String) → \($0[1] as String)" }
        }
    }

    /// The names of the people `format` selects, read through the runtime.
    private func names(_ format: String, in path: String) throws -> [String] {
        let coordinator = StoreCoordinator(model: try model)
        let store = try coordinator.addStore(StoreDescription(url: URL(fileURLWithPath: path), isReadOnly: true))
        defer { try? store.close() }
        let request = FetchRequest(entity: "Person", predicate: try FetchPredicate(format), sortDescriptors: [FetchSortDescriptor("name")])
        return try ObjectContext(coordinator: coordinator).fetch(request).map { try $0.string("name") ?? "nil" }
    }

    @Test func aNewStoreReadsTheRowsUnderBothNames() throws {
        let path = try makeStore("people.sqlite")
        #expect(try joinObjects(path) == ["view Z_1SIMILAR", "table Z_1SIMILARTO"])
        let rows = try pairs(path, in: "Z_1SIMILARTO")
        #expect(rows == ["Ada → Alan", "Ada → Grace", "Grace → Alan"])
        #expect(try pairs(path, in: "Z_1SIMILAR") == rows)
        // The view has the columns a table of its name would have, in that table's order.
        let columns = try StoreDatabase.openReadOnly(path).read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(Z_1SIMILAR)").map { $0["name"] as String }
        }
        #expect(columns == ["Z_1SIMILARTO", "Z_1SIMILAR"])
        #expect(try names("ANY similar.name == 'Alan'", in: path) == ["Ada", "Grace"])
    }

    /// A store whose join table is named after the relationship that sorts first (as some of Apple's
    /// are, whatever their framework version) keeps that name through the plain layout and back, with
    /// no view added; the plain copy remembers the name. Made as Core Data's migration renames such a
    /// table in place (Wire 2.96): the index it had under the other name stays beside the new one.
    @Test func aConversionKeepsTheNameTheStoreHas() throws {
        let source = try makeStore("apple.sqlite")
        let queue = try DatabaseQueue(path: source)
        try queue.write { db in
            try db.execute(sql: "DROP VIEW IF EXISTS Z_1SIMILAR")
            try db.execute(sql: "ALTER TABLE Z_1SIMILARTO RENAME TO Z_1SIMILAR")
            try db.execute(sql: "CREATE INDEX Z_1SIMILAR_Z_1SIMILAR_INDEX ON Z_1SIMILAR (Z_1SIMILAR, Z_1SIMILARTO)")
        }
        try queue.close()
        let (plain, back) = (directory.path("plain.sqlite"), directory.path("back.sqlite"))
        try LayoutConversion.convert(source, to: .plain, output: plain)
        let layout = try #require(try StoreMetadata.read(at: URL(fileURLWithPath: plain))[StoreMetadata.Key.coreDataLayout]?.objectValue)
        #expect(layout["joinTables"] == .object(["Z_1SIMILAR": .string("table")]))
        #expect(layout["joinTableIndexes"]?.objectValue?.keys.sorted() == ["Z_1SIMILARTO_Z_1SIMILARTO_INDEX"])
        #expect(try names("ANY similarTo.name == 'Ada'", in: plain) == ["Alan", "Grace"])
        try LayoutConversion.convert(plain, to: .coreData, output: back)
        #expect(try joinObjects(back) == ["table Z_1SIMILAR"])
        #expect(try pairs(back, in: "Z_1SIMILAR") == ["Ada → Alan", "Ada → Grace", "Grace → Alan"])
        let differences = try CoreDataRoundTripTests.differences(apple: source, ours: back)
        #expect(differences.isEmpty, "\(differences)")
        let indexes = try StoreDatabase.openReadOnly(back).read { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Z_1SIMILAR' AND sql IS NOT NULL ORDER BY name"
            )
        }
        #expect(indexes == ["Z_1SIMILARTO_Z_1SIMILARTO_INDEX", "Z_1SIMILAR_Z_1SIMILAR_INDEX"])
    }

    /// A store with a view keeps its table and its view through the plain layout and back.
    @Test func aConversionKeepsTheView() throws {
        let source = try makeStore("seed.sqlite")
        let (plain, back) = (directory.path("plain.sqlite"), directory.path("back.sqlite"))
        try LayoutConversion.convert(source, to: .plain, output: plain)
        try LayoutConversion.convert(plain, to: .coreData, output: back)
        #expect(try joinObjects(back) == ["view Z_1SIMILAR", "table Z_1SIMILARTO"])
        #expect(try pairs(back, in: "Z_1SIMILAR") == pairs(source, in: "Z_1SIMILARTO"))
        #expect(try CoreDataRoundTripTests.differences(apple: source, ours: back).isEmpty)
    }
}
