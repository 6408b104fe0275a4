import Foundation
import SeedModel
import SeedStore

// An app's data layer, written only against the public API as an app would write it: the seed
// read-only beside the user's own store, a main-queue context the UI reads, background contexts
// that save, typed records in and out.

/// A postcode from the seed, with its county decoded as a nested record.
struct Postcode: Decodable, Sendable {
    struct County: Decodable, Sendable {
        var code: String
        var name: String
    }

    var objectID: ObjectID
    var postcode: String
    var latitude: Double?
    var county: County?
}

/// A user's rating of a postcode, kept in the user's store and linked to the seed by the postcode.
struct Rating: Codable, Sendable {
    var objectID: ObjectID?
    var postcode: String
    var stars: Int
    var created: Date
}

final class AppData: Sendable {
    let coordinator: StoreCoordinator
    /// The context the user interface reads; it merges what background contexts save.
    let main: ObjectContext

    /// Opens the installed seed (read-only) beside the user's store (created on first use).
    init(model: Model, seed: URL, user: URL) throws {
        coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: seed, configuration: "Seed", isReadOnly: true))
        try coordinator.addStore(StoreDescription(type: .sqlite, url: user, configuration: "User"))
        main = ObjectContext(coordinator: coordinator, concurrencyType: .mainQueue)
        main.automaticallyMergesChangesFromParent = true
    }

    /// The postcodes of a county, in order, as typed records.
    func postcodes(inCounty code: String) async throws -> [Postcode] {
        try await main.perform { [main] in
            try main.fetch(Postcode.self, where: FetchPredicate("county.code == %@", code), sortedBy: [FetchSortDescriptor("postcode")])
        }
    }

    /// Saves a rating from a background context; the main context receives it by itself.
    func rate(_ postcode: String, stars: Int) async throws {
        let background = ObjectContext(coordinator: coordinator)
        try await background.perform {
            try background.insert(Rating(postcode: postcode, stars: stars, created: Date()))
            try background.save()
        }
    }

    /// Changes a rating from a background context, found by its ID (objects stay in their context).
    func change(_ rating: ObjectID, stars: Int) async throws {
        let background = ObjectContext(coordinator: coordinator)
        try await background.perform {
            try background.object(with: rating).setValue(.integer(Int64(stars)), for: "stars")
            try background.save()
        }
    }

    /// The ratings the main context holds for a postcode.
    func ratings(of postcode: String) async throws -> [Rating] {
        try await main.perform { [main] in try main.fetch(Rating.self, where: FetchPredicate("postcode == %@", postcode)) }
    }
}
