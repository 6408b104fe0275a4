import Foundation
import GRDB
import SeedInstall
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// A seed with a self-referential many-to-many (a table under one name, a view under the other:
/// `docs/store-format.md`, "Self-referential join tables") re-stamped for an app model that numbers
/// its entity otherwise: table and view both carry the new number and read the same rows, as in a
/// store made for the app's model.
@Suite("Re-stamping a seed whose join table is readable under two names")
struct RestampSelfReferentialTests {
    private let directory = TemporaryDirectory()

    /// The app's merged model; `account` adds a user entity that sorts before the seed's Person.
    private func appModel(account: Bool) throws -> Model {
        let seed = try ModelLoader.load(
            json: Data(
                """
                {"name": "People", "versionIdentifiers": ["1"], "configurations": [{"name": "Seed", "entities": ["Person"]}],
                 "entities": [{"name": "Person", "attributes": [{"name": "name", "type": "String", "optional": false}],
                   "relationships": [{"name": "similar", "destination": "Person", "inverse": "similarTo", "toMany": true},
                                     {"name": "similarTo", "destination": "Person", "inverse": "similar", "toMany": true}]}]}
                """.utf8), source: ModelSource(file: "People.json"))
        let entities = account ? #"{"name": "Account", "attributes": [{"name": "email", "type": "String"}]},"# : ""
        let user = try ModelLoader.load(
            json: Data(
                """
                {"name": "Notes", "configurations": [{"name": "User", "entities": [\(account ? "\"Account\", " : "")"Note"]}],
                 "entities": [\(entities) {"name": "Note", "attributes": [{"name": "text", "type": "String"}]}]}
                """.utf8), source: ModelSource(file: "Notes.json"))
        return try Model.merged([seed, user])
    }

    /// A store in Core Data's layout made by the runtime for `model`: Ada is similar to Grace and Alan.
    private func makeStore(_ name: String, model: Model) throws -> String {
        let url = directory.url(name)
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addStore(
            StoreDescription(url: url, configuration: "Seed", sqliteJournalMode: .delete, storeLayout: .coreData))
        let context = ObjectContext(coordinator: coordinator)
        var people: [String: ManagedObject] = [:]
        for name in ["Ada", "Grace", "Alan"] {
            people[name] = try context.insert(entity: "Person")
            people[name]!["name"] = .text(name)
        }
        try people["Ada"]!.addObject(people["Grace"]!, toRelationship: "similar")
        try people["Ada"]!.addObject(people["Alan"]!, toRelationship: "similar")
        try context.save()
        try coordinator.removeStore(store)
        return url.path
    }

    private func schema(_ path: String) throws -> [String] {
        try StoreDatabase.openReadOnly(path).read { db in
            try String.fetchAll(
                db,
                sql: "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE name GLOB 'Z_[0-9]SIMILAR*' ORDER BY type, name")
        }
    }

    private func pairs(_ path: String, in name: String, number: Int) throws -> [String] {
        try StoreDatabase.openReadOnly(path).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.ZNAME, b.ZNAME FROM \(name) AS j JOIN ZPERSON AS a ON a.Z_PK = j.Z_\(number)SIMILARTO
                    JOIN ZPERSON AS b ON b.Z_PK = j.Z_\(number)SIMILAR ORDER BY 1, 2
                    """
            ).map { "\($0[0] as String) → \($0[1] as String)" }
        }
    }

    @Test func tableAndViewTakeTheAppsNumbers() throws {
        let published = try makeStore("published.sqlite", model: try appModel(account: false))
        let app = try appModel(account: true)
        let restamped = directory.path("restamped.sqlite")
        let metadata = try StoreRestamp.restamp(published, for: app, output: restamped)
        let made = try makeStore("made.sqlite", model: app)

        #expect(
            try schema(published).contains("view Z_2SIMILAR: CREATE VIEW Z_2SIMILAR AS SELECT Z_2SIMILARTO, Z_2SIMILAR FROM Z_2SIMILARTO"))
        #expect(try schema(restamped) == schema(made))
        #expect(
            try schema(restamped).contains("view Z_3SIMILAR: CREATE VIEW Z_3SIMILAR AS SELECT Z_3SIMILARTO, Z_3SIMILAR FROM Z_3SIMILARTO"))
        #expect(try pairs(restamped, in: "Z_3SIMILARTO", number: 3) == ["Ada → Alan", "Ada → Grace"])
        #expect(try pairs(restamped, in: "Z_3SIMILAR", number: 3) == ["Ada → Alan", "Ada → Grace"])
        let digest = try StoreDatabase.openReadOnly(restamped).read { db in
            try ContentDigest.compute(db, schema: StoreDatabase.embeddedSchema(db, path: restamped))
        }
        #expect(digest == metadata.contentDigest)

        // Read back through the runtime under the app's model.
        let coordinator = StoreCoordinator(model: app)
        try coordinator.addStore(StoreDescription(url: URL(fileURLWithPath: restamped), configuration: "Seed", isReadOnly: true))
        let context = ObjectContext(coordinator: coordinator)
        let request = FetchRequest(
            entity: "Person", predicate: try FetchPredicate("ANY similarTo.name == 'Ada'"), sortDescriptors: [FetchSortDescriptor("name")])
        #expect(try context.fetch(request).map { try $0.string("name") } == ["Alan", "Grace"])
    }
}
