import Foundation
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

@Suite("Verify step 4: the seed beside an empty user store, fetched properties resolved")
struct CrossStoreVerifyTests {
    private let directory = TemporaryDirectory()

    /// The sample seed stamped with the seed model alone.
    private func sampleStore() throws -> String {
        try SampleSeed.build(into: directory.path("seed"), userModels: []).storePath
    }

    /// The current sample seed model with its `ratings` predicate replaced.
    private func seedModel(ratingsPredicate: String) throws -> Model {
        let original = try String(
            contentsOfFile: repositoryPath("schemas/PostCodesModel.xcdatamodeld/PostCodesModel 2.xcdatamodel/contents"), encoding: .utf8)
        let edited = original.replacingOccurrences(of: "postcode == $FETCH_SOURCE.postcode", with: ratingsPredicate)
        #expect(edited != original || ratingsPredicate == "postcode == $FETCH_SOURCE.postcode")
        return try ModelLoader.load(directory.write("edited/PostCodesModel.xcdatamodel/contents", edited))
    }

    private func userModel() throws -> Model {
        try ModelLoader.load(repositoryPath("schemas/UserModel.xcdatamodeld"))
    }

    @Test func sampleLinkResolves() throws {
        let report = try Verifier().verify(
            try sampleStore(), seedModels: [try seedModel(ratingsPredicate: "postcode == $FETCH_SOURCE.postcode")],
            userModels: [try userModel()])
        #expect(report.passed)
        let details = try #require(report.models.first?.details)
        #expect(details.contains("inserted one Rating into an empty user store beside the seed"))
        #expect(details.contains { $0.hasPrefix("fetched property Postcode.ratings resolved: 1 Rating for Postcode ") })
    }

    @Test func userEntitiesWithRequiredRelationshipsAreInsertedLinked() throws {
        let userModel = try ModelLoader.load(
            json: Data(
                """
                {"name": "Notes", "configurations": [{"name": "UserConf", "entities": ["Folder", "Rating"]}],
                 "entities": [
                  {"name": "Folder", "attributes": [{"name": "name", "type": "String", "optional": false, "min": "3"}],
                   "relationships": [{"name": "ratings", "destination": "Rating", "inverse": "folder", "toMany": true}]},
                  {"name": "Rating", "attributes": [{"name": "postcode", "type": "String", "optional": false},
                                                   {"name": "stars", "type": "Integer 16", "optional": false, "min": "1", "max": "5"}],
                   "relationships": [{"name": "folder", "destination": "Folder", "inverse": "ratings", "optional": false}]}]}
                """.utf8), source: ModelSource(file: "notes.json"))
        let report = try Verifier().verify(
            try sampleStore(), seedModels: [try seedModel(ratingsPredicate: "postcode == $FETCH_SOURCE.postcode")], userModels: [userModel])
        #expect(report.passed, "\(report.models.map(\.details))")
        #expect(report.models.first?.details.contains("inserted one Folder, Rating into an empty user store beside the seed") == true)
    }

    /// Core Data's way to point app objects at seed objects without saving the link: a transient
    /// relationship. The same relationship saved would cross stores, and is refused.
    @Test func aTransientRelationshipToASeedEntityPasses() throws {
        func userModel(transient: Bool) throws -> Model {
            try ModelLoader.load(
                json: Data(
                    """
                    {"name": "Visits", "configurations": [{"name": "UserConf", "entities": ["Rating"]}],
                     "entities": [{"name": "Rating", "attributes": [{"name": "postcode", "type": "String", "optional": false}],
                       "relationships": [{"name": "place", "destination": "Postcode", "transient": \(transient)}]}]}
                    """.utf8), source: ModelSource(file: "visits.json"))
        }
        let store = try sampleStore()
        let seed = try seedModel(ratingsPredicate: "postcode == $FETCH_SOURCE.postcode")
        let report = try Verifier().verify(store, seedModels: [seed], userModels: [try userModel(transient: true)])
        #expect(report.passed, "\(report.models.map(\.details))")
        #expect(report.models.first?.details.contains("inserted one Rating into an empty user store beside the seed") == true)
        let refused = try Verifier().verify(store, seedModels: [seed], userModels: [try userModel(transient: false)])
        #expect(!refused.passed)
        #expect(
            refused.models.first?.details.contains { $0.contains("Rating.place") && $0.contains("the relationship crosses stores") }
                == true, "\(refused.models.map(\.details))")
    }

    @Test(arguments: [
        ("code == $FETCH_SOURCE.postcode", "Rating has no attribute or relationship named \"code\""),
        ("postcode == $FETCH_SOURCE.zip", "Postcode has no attribute or to-one relationship \"zip\""),
        ("postcode == $FETCH_SOURCE.postcode AND postcode == $FETCH_SOURCE.area", "found no Rating for Postcode"),
        ("postcode BEGINS $FETCH_SOURCE.postcode", "expected a comparison operator"),
    ])
    func brokenLinkIsRefusedBeforePublishing(predicate: String, reason: String) throws {
        let report = try Verifier().verify(
            try sampleStore(), seedModels: [try seedModel(ratingsPredicate: predicate)], userModels: [try userModel()])
        #expect(!report.passed)
        let result = try #require(report.models.first)
        #expect(result.verdict == .refused)
        #expect(result.details.contains { $0.contains("Postcode.ratings") && $0.contains(reason) }, "\(result.details)")
    }
}
