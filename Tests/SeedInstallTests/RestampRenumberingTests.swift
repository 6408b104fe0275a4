import Foundation
import GRDB
import SeedInstall
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// A seed whose layout names entity numbers everywhere Core Data's does — an inheritance tree behind
/// a to-one (`Z<n>_VENUE`), a to-many without inverse (`Z<n>HIGHLIGHTS`), an ordered many-to-many
/// (`Z_<n>TOWNS`, its columns and its `Z_FOK_` column) — re-stamped for an app model that numbers every
/// seed entity one higher, is what a store made for that model holds: same tables, columns, indexes,
/// `Z_PRIMARYKEY` and rows.
@Suite("Re-stamping renumbers as a store made for the app's model is numbered")
struct RestampRenumberingTests {
    private let directory = TemporaryDirectory()

    private static let seedModelJSON = """
        {"name": "Atlas", "versionIdentifiers": ["1"],
         "configurations": [{"name": "Seed", "entities": ["Region", "Stadium", "Tag", "Town", "Venue"]}],
         "entities": [
          {"name": "Region", "attributes": [{"name": "name", "type": "String", "optional": false}],
           "relationships": [{"name": "towns", "destination": "Town", "inverse": "region", "toMany": true},
                             {"name": "highlights", "destination": "Venue", "toMany": true}]},
          {"name": "Tag", "attributes": [{"name": "label", "type": "String", "optional": false}],
           "relationships": [{"name": "towns", "destination": "Town", "inverse": "tags", "toMany": true}]},
          {"name": "Town", "attributes": [{"name": "name", "type": "String", "optional": false}],
           "relationships": [{"name": "region", "destination": "Region", "inverse": "towns"},
                             {"name": "tags", "destination": "Tag", "inverse": "towns", "toMany": true, "ordered": true},
                             {"name": "venue", "destination": "Venue", "inverse": "towns"}]},
          {"name": "Venue", "attributes": [{"name": "name", "type": "String", "optional": false}],
           "relationships": [{"name": "towns", "destination": "Town", "inverse": "venue", "toMany": true}]},
          {"name": "Stadium", "parentEntity": "Venue", "attributes": [{"name": "seats", "type": "Integer 32"}]}
         ]}
        """

    /// The app's merged model; `account` adds a user entity that sorts before every seed entity.
    private func appModel(account: Bool) throws -> Model {
        let seed = try ModelLoader.load(json: Data(Self.seedModelJSON.utf8), source: ModelSource(file: "Atlas.json"))
        let entities = account ? "\"Account\", \"Note\"" : "\"Note\""
        let account = account ? #"{"name": "Account", "attributes": [{"name": "email", "type": "String"}]},"# : ""
        let user = try ModelLoader.load(
            json: Data(
                """
                {"name": "Notes", "configurations": [{"name": "User", "entities": [\(entities)]}],
                 "entities": [\(account) {"name": "Note", "attributes": [{"name": "text", "type": "String"}]}]}
                """.utf8), source: ModelSource(file: "Notes.json"))
        return try Model.merged([seed, user])
    }

    /// A store in Core Data's layout made by the runtime for `model`, always with the same objects.
    private func makeStore(_ name: String, model: Model) throws -> String {
        let url = directory.url(name)
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addStore(
            StoreDescription(url: url, configuration: "Seed", sqliteJournalMode: .delete, storeLayout: .coreData))
        let context = ObjectContext(coordinator: coordinator)
        func insert(_ entity: String, _ name: String) throws -> ManagedObject {
            let object = try context.insert(entity: entity)
            object[entity == "Tag" ? "label" : "name"] = .text(name)
            return object
        }
        let north = try insert("Region", "North"), south = try insert("Region", "South")
        let red = try insert("Tag", "red"), blue = try insert("Tag", "blue")
        let arena = try insert("Venue", "Arena"), bowl = try insert("Stadium", "Bowl")
        bowl["seats"] = .integer(30_000)
        for (town, region, venue, tags) in [
            ("Ayton", north, arena, [red, blue]), ("Byton", south, arena, [blue]), ("Cyton", north, nil, []),
        ] {
            let object = try insert("Town", town)
            try object.setObject(region, forRelationship: "region")
            try object.setObject(venue, forRelationship: "venue")
            for tag in tags { try object.addObject(tag, toRelationship: "tags") }
        }
        try north.addObject(arena, toRelationship: "highlights")
        try context.save()
        try coordinator.removeStore(store)
        return url.path
    }

    /// Tables, indexes and every row but the metadata's, as text.
    private func contents(_ path: String) throws -> (schema: [String], rows: [String: [String]]) {
        let queue = try StoreDatabase.openReadOnly(path)
        defer { try? queue.close() }
        return try queue.read { db in
            let schema = try Row.fetchAll(
                db, sql: "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite%' ORDER BY type, name"
            ).map(\.description)
            var rows: [String: [String]] = [:]
            for table in try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT IN ('Z_METADATA', 'Z_MODELCACHE')"
            ) {
                rows[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2").map(\.description)
            }
            return (schema, rows)
        }
    }

    @Test func renumberedAsAStoreMadeForTheAppsModel() throws {
        let published = try makeStore("published.sqlite", model: try appModel(account: false))
        let app = try appModel(account: true)
        let restamped = directory.path("restamped.sqlite")
        let metadata = try StoreRestamp.restamp(published, for: app, output: restamped)
        let made = try makeStore("made.sqlite", model: app)

        let (before, (after, expected)) = (try contents(published), (try contents(restamped), try contents(made)))
        #expect(before.schema != expected.schema, "the app's model numbers the seed's entities otherwise")
        #expect(after.schema == expected.schema)
        #expect(after.rows == expected.rows)
        for (names, schema) in [
            (["Z_3TOWNS", "Z_FOK_3TAGS", "Z5_VENUE", "Z2HIGHLIGHTS"], before.schema),
            (["Z_4TOWNS", "Z_FOK_4TAGS", "Z6_VENUE", "Z3HIGHLIGHTS"], after.schema),
        ] {
            #expect(names.allSatisfy { name in schema.contains { $0.contains(name) } }, "\(names)")
        }

        #expect(metadata.hashDifferences(from: app, embeddedModel: nil).isEmpty)
        for path in [restamped, made] {
            let digest = try StoreDatabase.openReadOnly(path).read { db in
                try ContentDigest.compute(db, schema: StoreDatabase.embeddedSchema(db, path: path))
            }
            #expect(digest == metadata.contentDigest, "\(path)")
        }

        // Read back through the runtime under the app's model: every link where it was.
        let coordinator = StoreCoordinator(model: app)
        try coordinator.addStore(StoreDescription(url: URL(fileURLWithPath: restamped), configuration: "Seed", isReadOnly: true))
        let context = ObjectContext(coordinator: coordinator)
        let ayton = try #require(
            try context.fetch(FetchRequest(entity: "Town", predicate: try FetchPredicate("name == %@", "Ayton"))).first)
        #expect(try ayton.object(forRelationship: "region")?.string("name") == "North")
        #expect(try ayton.object(forRelationship: "venue")?.string("name") == "Arena")
        #expect(try ayton.objects(forRelationship: "tags").map { try $0.string("label") } == ["red", "blue"])
        let north = try #require(
            try context.fetch(FetchRequest(entity: "Region", predicate: try FetchPredicate("name == %@", "North"))).first)
        #expect(try north.objects(forRelationship: "highlights").map { try $0.string("name") } == ["Arena"])
        let stadium = try #require(try context.fetch(FetchRequest(entity: "Stadium")).first)
        #expect(try stadium.integer("seats") == 30_000 && context.count(FetchRequest(entity: "Venue")) == 2)
    }
}
