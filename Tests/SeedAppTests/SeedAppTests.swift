import Foundation
import SeedModel
import SeedStore
import Testing

/// The app's model: seed data in one configuration, the user's data in another.
private let appModelJSON = """
    {"name": "App", "versionIdentifiers": ["1"],
     "configurations": [{"name": "Seed", "entities": ["County", "Postcode"]}, {"name": "User", "entities": ["Rating"]}],
     "entities": [
       {"name": "County", "attributes": [{"name": "code", "type": "String", "optional": false}, {"name": "name", "type": "String", "optional": false}],
        "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "county", "toMany": true}]},
       {"name": "Postcode", "attributes": [{"name": "postcode", "type": "String", "optional": false}, {"name": "latitude", "type": "Double"}],
        "relationships": [{"name": "county", "destination": "County", "inverse": "postcodes"}]},
       {"name": "Rating", "attributes": [{"name": "postcode", "type": "String", "optional": false},
                                         {"name": "stars", "type": "Integer 16", "optional": false, "min": "1", "max": "5"},
                                         {"name": "created", "type": "Date", "optional": false}]}
     ]}
    """

@Suite("An app's common tasks, through the public API only")
struct SeedAppTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seedapp-\(UUID().uuidString)")

    /// A seed as the pipeline would ship it: written once, then only ever opened read-only.
    private func makeSeed(_ model: Model) throws -> URL {
        let url = folder.appendingPathComponent("postcodes-7.sqlite")
        let builder = StoreCoordinator(model: model)
        try builder.addStore(StoreDescription(type: .sqlite, url: url, configuration: "Seed"))
        let context = ObjectContext(coordinator: builder)
        let kent = try context.insert(entity: "County")
        kent["code"] = "KEN"
        kent["name"] = "Kent"
        for (code, latitude) in [("CT2 7AA", 51.29), ("CT1 1AA", 51.28)] {
            let postcode = try context.insert(entity: "Postcode")
            postcode["postcode"] = .text(code)
            postcode["latitude"] = .real(latitude)
            try postcode.setObject(kent, forRelationship: "county")
        }
        try context.save()
        try builder.removeStore(builder.stores[0])
        return url
    }

    @Test func openTheSeedBesideAUserStoreFetchRecordsSaveInTheBackgroundAndSeeItOnMain() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try ModelLoader.load(json: Data(appModelJSON.utf8), source: ModelSource(file: "App.json"))
        let app = try AppData(model: model, seed: try makeSeed(model), user: folder.appendingPathComponent("user.sqlite"))

        let kent = try await app.postcodes(inCounty: "KEN")
        #expect(kent.map(\.postcode) == ["CT1 1AA", "CT2 7AA"] && kent.first?.county?.name == "Kent")

        try await app.rate("CT1 1AA", stars: 5)
        let ratings = try await app.ratings(of: "CT1 1AA")
        #expect(ratings.map(\.stars) == [5], "saved in the background, read on main")

        // The main context keeps the rating it fetched; a background change is merged into it.
        let rating = try #require(ratings.first?.objectID)
        try await app.change(rating, stars: 3)
        #expect(try await app.ratings(of: "CT1 1AA").map(\.stars) == [3])
        let merged = try await app.main.perform { [main = app.main] in try main.object(with: rating).integer("stars") }
        #expect(merged == 3)

        // Object IDs cross tasks; each context gives its own instance for one.
        let id = try #require(kent.first?.objectID)
        let background = ObjectContext(coordinator: app.coordinator)
        let name = try await background.perform { try background.object(with: id).string("postcode") }
        #expect(name == "CT1 1AA")

        // The seed stays read-only: a change to it is refused, naming the store.
        await #expect(throws: StoreError.self) {
            try await background.perform {
                try background.object(with: id).setValue("CT1 9ZZ", for: "postcode")
                try background.save()
            }
        }
    }
}
