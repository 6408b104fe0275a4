import Foundation
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

@Suite("The sample seed at run time: read-only beside a user store")
struct SampleRuntimeTests {
    private let directory = TemporaryDirectory()

    /// Builds the sample seed with the bundle's current model (v2) or a given version's folder,
    /// stamped for the app's merged model, as the nightly job does: Core Data compares every entity.
    private func buildSample(model: String = SampleSeed.seedModel, into folder: String, layout: StoreLayout) throws -> URL {
        URL(fileURLWithPath: try SampleSeed.build(into: directory.path(folder), model: model, layout: layout).storePath)
    }

    private func mergedSampleModel() throws -> Model { try SampleSeed.mergedModel() }

    @Test(arguments: StoreLayout.allCases)
    func seedReadOnlyBesideUserStoreLinkedByFetchedProperty(_ layout: StoreLayout) throws {
        let seedURL = try buildSample(into: "seed", layout: layout)
        let original = try Data(contentsOf: seedURL)
        let coordinator = StoreCoordinator(model: try mergedSampleModel())
        let seed = try coordinator.addStore(StoreDescription(type: .sqlite, url: seedURL, configuration: "PostCodesConf", isReadOnly: true))
        let user = try coordinator.addStore(
            StoreDescription(
                type: .sqlite, url: directory.url.appendingPathComponent("user/User.sqlite"), configuration: "UserConf", storeLayout: layout
            ))
        #expect(seed.entityNames == ["County", "Postcode"] && user.entityNames == ["Rating"])

        let context = ObjectContext(coordinator: coordinator)
        let request = FetchRequest(
            entity: "Postcode", predicate: try FetchPredicate("postcode BEGINSWITH 'CT'"),
            sortDescriptors: [FetchSortDescriptor("postcode")])
        let canterbury = try context.fetch(request)
        #expect(canterbury.count == 11)
        #expect(try context.count(request) == 11)
        let first = canterbury[0]
        #expect(first.store === seed)
        #expect(try first.object(forRelationship: "county")?.string("name") != nil)
        #expect(try first.fetchedObjects("ratings").isEmpty)

        for (postcode, stars) in [
            (try first.string("postcode")!, 4), (try first.string("postcode")!, 2), (try canterbury[1].string("postcode")!, 5),
        ] {
            let rating = try context.insert(entity: "Rating")
            rating["postcode"] = .text(postcode)
            rating["rating"] = .integer(Int64(stars))
            rating["created"] = StoreValue(Date(timeIntervalSince1970: 1_700_000_000))
        }
        try context.save()
        #expect(try user.count(StoreFetch(entity: "Rating")) == 3)
        #expect(try first.fetchedObjects("ratings").isEmpty, "cached until refresh, as in Core Data")
        try context.refresh(first, mergeChanges: false)
        #expect(try first.fetchedObjects("ratings").compactMap { try $0.integer("rating") }.sorted() == [2, 4])
        #expect(try canterbury[1].fetchedObjects("ratings").map { $0.store === user } == [true])

        // Key paths through the to-one relationship reach County in the same store.
        let kent = try context.fetch(
            FetchRequest(entity: "Postcode", predicate: try FetchPredicate("county.name CONTAINS[c] 'kent' AND postcode BEGINSWITH 'CT'")))
        #expect(kent.count == 11)

        first["ward"] = "Changed"
        let refused = try #require(throws: StoreError.self) { try context.save() }
        #expect(refused.description.contains("read-only") && refused.description.contains("Postcode"))
        context.rollback()
        #expect(try Data(contentsOf: seedURL) == original)
    }

    @Test(arguments: StoreLayout.allCases)
    func v1SeedOpensUnderTheV2ModelThroughMigration(_ layout: StoreLayout) throws {
        let v1URL = try buildSample(model: "schemas/PostCodesModel.xcdatamodeld/PostCodesModel.xcdatamodel", into: "v1", layout: layout)
        let original = try Data(contentsOf: v1URL)
        let merged = try mergedSampleModel()

        let plain = StoreCoordinator(model: merged)
        let refused = try #require(throws: CoordinatorError.self) {
            try plain.addStore(StoreDescription(type: .sqlite, url: v1URL, configuration: "PostCodesConf", isReadOnly: true))
        }
        #expect(refused.differingEntities.contains("Postcode"))

        let coordinator = StoreCoordinator(model: merged)
        try coordinator.addStore(
            StoreDescription(
                type: .sqlite, url: v1URL, configuration: "PostCodesConf", isReadOnly: true,
                shouldMigrateStoreAutomatically: true, shouldInferMappingAutomatically: true,
                migrationCachesDirectory: directory.url.appendingPathComponent("caches")))
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "UserConf"))
        let context = ObjectContext(coordinator: coordinator)
        let hastings = try context.fetch(FetchRequest(entity: "Postcode", predicate: try FetchPredicate("postcode == 'BN15 3XA'")))
        #expect(try hastings.first?.string("area") == "Hastings", "v1's district arrives under v2's name")
        #expect(try hastings.first?.string("ward") == nil, "ward is new in v2: a v1 seed has no values for it")
        #expect(try context.count(FetchRequest(entity: "Postcode")) == 311)
        #expect(try Data(contentsOf: v1URL) == original, "the v1 seed itself is never changed")
    }
}
