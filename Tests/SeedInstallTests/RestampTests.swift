import Foundation
import GRDB
import SeedInstall
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// An app whose user model moved on (a new entity, a changed one) installs the seed published for
/// the old merged model: the installer re-stamps it on the device for the app's own model, so it
/// opens read-only with no migration — renumbered where the app's model numbers entities differently.
@Suite("The installer stamps the seed for the app's own model")
struct RestampTests {
    private let directory = TemporaryDirectory()

    /// The app's next version: Rating gains an attribute, and a new user entity Account sorts
    /// before County, so Core Data numbers every seed entity one higher.
    private func nextAppModel() throws -> Model {
        var user = try ModelLoader.load(repositoryPath(SampleSeed.userModel))
        let rating = try #require(user.entities.firstIndex { $0.name == "Rating" })
        user.entities[rating].attributes.append(Attribute(name: "mood", type: .string))
        user.entities.append(Entity(name: "Account", attributes: [Attribute(name: "email", type: .string)]))
        let conf = try #require(user.configurations.firstIndex { $0.name == "UserConf" })
        user.configurations[conf].entities = (user.configurations[conf].entities + ["Account"]).sorted()
        return try Model.merged([ModelLoader.load(repositoryPath(SampleSeed.seedModel)), user])
    }

    private func installer(_ model: Model) -> SeedInstaller {
        var installer = SeedInstaller()
        installer.now = { Date().addingTimeInterval(86_400) }
        installer.allowUnsigned = true
        installer.model = model
        return installer
    }

    @Test func seedOpensUnderTheAppsNewerModelWithNoMigration() throws {
        let channel = try SampleSeed.publish(in: directory)
        let app = try nextAppModel()
        // Published for the old merged model, the seed does not fit the new one as it is.
        let published = try StoreMetadata.read(at: URL(fileURLWithPath: directory.path("out/postcodes.sqlite")))
        #expect(published.hashDifferences(from: app, embeddedModel: nil).map(\.entity).sorted() == ["Account", "Rating"])

        let result = try installer(app).install(from: channel, to: directory.path("app"))
        #expect(result.outcome == .installed && result.migration == nil && result.restamped)
        #expect(
            try installedFiles(directory.path("app")) == ["postcodes-3.sqlite", "postcodes.current"],
            "no temporary file of the re-stamp is left")
        let installed = URL(fileURLWithPath: result.storePath)
        let metadata = try StoreMetadata.read(at: installed)
        #expect(metadata.hashDifferences(from: app, embeddedModel: nil).isEmpty)
        #expect(metadata[StoreMetadata.Key.restampedFrom]?.objectValue?["versionHashes"] == published[StoreMetadata.Key.versionHashes])

        // Numbered as the app's model numbers entities: Account 1, County 2, Postcode 3, Rating 4.
        let queue = try StoreDatabase.openReadOnly(installed.path)
        try queue.read { db in
            let numbers = try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
                "\($0[0] as String)=\($0[1] as Int)"
            }
            #expect(numbers == ["Account=1", "County=2", "Postcode=3", "Rating=4"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPOSTCODE WHERE Z_ENT = 3") == 311)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZCOUNTY WHERE Z_ENT = 2") == 12)
            // The digest the metadata states is the digest of the rows as they are now.
            #expect(try ContentDigest.compute(db, schema: StoreDatabase.embeddedSchema(db, path: installed.path)) == metadata.contentDigest)
        }
        try queue.close()
        #expect(metadata.contentDigest != published.contentDigest, "Z_ENT changed, and with it the digest")
        // The UUID is the channel's, so the app's object IDs survive the re-stamp.
        #expect(metadata.storeUUID == published.storeUUID)

        let coordinator = StoreCoordinator(model: app)
        try coordinator.addStore(StoreDescription(url: installed, configuration: "PostCodesConf", isReadOnly: true))
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "UserConf"))
        let context = ObjectContext(coordinator: coordinator)
        #expect(try context.count(FetchRequest(entity: "Postcode")) == 311)
        let kent = try context.fetch(FetchRequest(entity: "Postcode", predicate: try FetchPredicate("county.name CONTAINS[c] %@", "kent")))
        #expect(kent.count > 0 && kent.allSatisfy { (try? $0.object(forRelationship: "county")?.string("name")) == "Kent" })
    }

    @Test func aSeedEntityThatDiffersIsNotRestamped() throws {
        let channel = try SampleSeed.publish(in: directory)
        let seed = directory.path("out/postcodes.sqlite")
        var app = try nextAppModel()
        let postcode = try #require(app.entities.firstIndex { $0.name == "Postcode" })
        app.entities[postcode].attributes.append(Attribute(name: "parish", type: .string))
        // A seed entity changed: the data does not carry it, so no re-stamp; a lightweight migration instead.
        let result = try installer(app).install(from: channel, to: directory.path("app"))
        #expect(result.migration?.changes.map(\.kind).contains(.addAttribute) == true && !result.restamped)
        let error = try #require(throws: StoreError.self) {
            try StoreRestamp.restamp(seed, for: app, output: directory.path("restamped.sqlite"))
        }
        #expect(error.kind == .refused && error.message.contains("Postcode"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("restamped.sqlite")))
    }

    @Test func aPlainSeedGetsItsHashesAndModelOnly() throws {
        let built = try SampleSeed.build(into: directory.path("plain"), layout: .plain)
        let app = try nextAppModel()
        let before = try StoreMetadata.read(at: URL(fileURLWithPath: built.storePath))
        let output = directory.path("restamped.sqlite")
        let metadata = try StoreRestamp.restamp(built.storePath, for: app, output: output)
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: output)) == metadata)
        #expect(metadata.hashDifferences(from: app, embeddedModel: nil).isEmpty)
        #expect(metadata.contentDigest == before.contentDigest, "the same rows")
        let embedded = try StoreDatabase.openReadOnly(output).read { db in try StoreDatabase.embeddedModel(db, path: output) }
        #expect(embedded.model.entityVersionHashes == (try app.restricted(to: "PostCodesConf")).entityVersionHashes)
    }
}
