import Foundation
import SeedModel
import SeedStore
import Testing

@Suite("seedbuild query")
struct QueryCommandTests {
    private let models = ["--model", "schemas/PostCodesModel.xcdatamodeld", "--model", "schemas/UserModel.xcdatamodeld"]

    /// The sample built, and a user store holding three ratings for two Canterbury postcodes.
    private func project() throws -> SampleProject {
        let project = try SampleProject()
        let build = try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url)
        #expect(build.status == 0, "\(build.stderr)")
        let model = try Model.merged([
            ModelLoader.load(project.path("schemas/PostCodesModel.xcdatamodeld")),
            ModelLoader.load(project.path("schemas/UserModel.xcdatamodeld")),
        ])
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(
            StoreDescription(type: .sqlite, url: URL(fileURLWithPath: project.path("user.sqlite")), configuration: "UserConf"))
        let context = ObjectContext(coordinator: coordinator)
        for (postcode, stars, comment) in [("CT2 0WG", 5, "quiet"), ("CT2 0WG", 3, nil), ("CT5 1GL", 4, "by the sea")] {
            let rating = try context.insert(entity: "Rating")
            rating["postcode"] = .text(postcode)
            rating["rating"] = .integer(Int64(stars))
            rating["comment"] = StoreValue(comment)
            rating["created"] = StoreValue(Date(timeIntervalSince1970: 1_700_000_000))
        }
        try context.save()
        return project
    }

    @Test func seedBesideUserStoreWithFetchedRatings() throws {
        let project = try project()
        let result = try runSeedbuild(
            ["query", "--store", "build/seed/postcodes.sqlite:PostCodesConf:ro", "--store", "user.sqlite:UserConf"] + models
                + [
                    "Postcode", "--where", "postcode BEGINSWITH 'CT' AND ward != nil", "--fetched", "ratings", "--sort", "postcode:desc",
                    "--json",
                ],
            in: project.url)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(lines.count == 8, "11 CT postcodes, 3 without a ward")
        let postcodes = lines.map { $0["postcode"] as! String }
        #expect(postcodes == postcodes.sorted(by: >), "sorted descending")
        let quiet = try #require(lines.first { $0["postcode"] as? String == "CT2 0WG" })
        let ratings = try #require(quiet["ratings"] as? [[String: Any]])
        #expect(ratings.compactMap { $0["rating"] as? Int }.sorted() == [3, 5])
        #expect(quiet["introduced"] as? String == "2011-05-25T00:00:00Z", "dates print as ISO 8601")
        #expect(lines.filter { ($0["ratings"] as? [Any])?.isEmpty == false }.count == 2)
        #expect(result.stderr.isEmpty)

        // Not a terminal: JSON Lines without --json too; --limit cuts.
        let limited = try runSeedbuild(
            ["query", "--store", "build/seed/postcodes.sqlite:ro", "--store", "user.sqlite"] + models + [
                "Rating", "--sort", "rating", "--limit", "2",
            ], in: project.url)
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(limited.stdout.split(separator: "\n").map { $0.contains("\"rating\":3") || $0.contains("\"rating\":4") } == [true, true])
    }

    @Test func mistakesFailWithWhereAndWhat() throws {
        let project = try project()
        let stores = ["query", "--store", "build/seed/postcodes.sqlite:PostCodesConf:ro", "--store", "user.sqlite:UserConf"] + models
        let predicate = try runSeedbuild(stores + ["Postcode", "--where", "postcode BEGINS 'CT'"], in: project.url)
        #expect(predicate.status == 65)
        #expect(predicate.stderr.contains("at position 10: expected a comparison operator"))
        let keyPath = try runSeedbuild(stores + ["Postcode", "--where", "town == 'x'"], in: project.url)
        #expect(keyPath.status == 65)
        #expect(keyPath.stderr.contains("Postcode has no attribute or relationship named \"town\""))
        let fetched = try runSeedbuild(stores + ["Postcode", "--fetched", "reviews"], in: project.url)
        #expect(fetched.status == 65)
        #expect(fetched.stderr.contains("no fetched property \"reviews\"; it has ratings"))
        let missing = try runSeedbuild(["query", "--store", "nowhere.sqlite"] + models + ["Postcode"], in: project.url)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("nowhere.sqlite: no such store"))
        let seedBefore = try Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/postcodes.sqlite")))
        let unmarked = try runSeedbuild(
            ["query", "--store", "build/seed/postcodes.sqlite"] + models + ["County", "--limit", "1"], in: project.url)
        #expect(unmarked.status == 0, "\(unmarked.stderr)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/postcodes.sqlite"))) == seedBefore,
            "a query never changes a store, :ro or not")
        let artifact = try runSeedbuild(
            ["query", "--store", "build/seed/postcodes.sqlite.gz:ro"] + models + ["County", "--where", "code == 'E10000016'"],
            in: project.url)
        #expect(artifact.status == 0, "\(artifact.stderr)")
        #expect(artifact.stdout.contains("\"name\":\"Kent\""))
        let usage = try runSeedbuild(
            ["query", "--store", "user.sqlite"] + models + ["Rating", "--sort", "rating:sideways"], in: project.url)
        #expect(usage.status == 64)
    }

    @Test func argumentsAndVariablesFillThePredicate() throws {
        let project = try project()
        let stores = ["query", "--store", "build/seed/postcodes.sqlite:PostCodesConf:ro"] + models + ["Postcode", "--sort", "postcode"]
        func postcodes(_ arguments: [String]) throws -> [String] {
            let result = try runSeedbuild(stores + arguments, in: project.url)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout.split(separator: "\n").map {
                (try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["postcode"] as! String
            }
        }
        // seeds/postcodes.csv has 23 rows in Kent (E10000016), 6 of them starting CT2.
        let kent = try postcodes(["--where", "county.name == %@", "--arg", "Kent"])
        #expect(kent.count == 23)
        #expect(kent == (try postcodes(["--where", "county.name == 'Kent'"])))
        let ct2 = ["CT2 0WG", "CT2 9TH", "CT25 3RS", "CT27 5QP", "CT27 9WP", "CT29 3WB"]
        #expect(
            try postcodes(["--where", "postcode BEGINSWITH %@ AND %K == %@", "--arg", "CT2", "--arg", "county.name", "--arg", "Kent"])
                == ct2)
        #expect(
            try postcodes(["--where", "%2$K == %1$@ AND postcode BEGINSWITH $P", "--arg", "Kent", "--arg", "county.name", "--var", "P=CT2"])
                == ct2)
        // To-many forms from the command line: Kent's county holds the 23; each other county fewer.
        let counties = ["query", "--store", "build/seed/postcodes.sqlite:PostCodesConf:ro"] + models + ["County", "--sort", "name"]
        let large = try runSeedbuild(
            counties + ["--where", "postcodes.@count == %d AND ANY postcodes.postcode BEGINSWITH %@", "--arg", "23", "--arg", "CT2"],
            in: project.url)
        #expect(large.status == 0, "\(large.stderr)")
        #expect(large.stdout.split(separator: "\n").count == 1 && large.stdout.contains("\"name\":\"Kent\""), "\(large.stdout)")
        #expect(
            try postcodes([
                "--where", "SUBQUERY(county.postcodes, $p, $p.postcode BEGINSWITH 'CT2').@count == 6 AND postcode MATCHES 'CT2 .*'",
            ]) == ["CT2 0WG", "CT2 9TH"])

        let few = try runSeedbuild(stores + ["--where", "county.name == %@ AND postcode BEGINSWITH %@", "--arg", "Kent"], in: project.url)
        #expect(few.status == 65)
        #expect(few.stderr.contains("at position 43: %@ (placeholder 2) has no argument: 1 given"), "\(few.stderr)")
        let type = try runSeedbuild(stores + ["--where", "introduced > %d", "--arg", "soon"], in: project.url)
        #expect(type.status == 65)
        #expect(type.stderr.contains("%d (placeholder 1) takes an integer, not \"soon\""), "\(type.stderr)")
        let unused = try runSeedbuild(stores + ["--where", "postcode BEGINSWITH $P", "--var", "P=CT", "--var", "Q=x"], in: project.url)
        #expect(unused.status == 65)
        #expect(unused.stderr.contains("a value is given for $Q, which the predicate does not use"), "\(unused.stderr)")
        let unbound = try runSeedbuild(stores + ["--where", "postcode BEGINSWITH $P"], in: project.url)
        #expect(unbound.stderr.contains("no value for $P; pass --var P=VALUE"), "\(unbound.stderr)")
        let bad = try runSeedbuild(stores + ["--where", "postcode == $P", "--var", "=CT"], in: project.url)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--var takes NAME=VALUE"), "\(bad.stderr)")
    }
}
