import Foundation
import SeedTestSupport
import Testing

/// `inspect`, `query`, `verify` and `migrate --format` on every store Apple's Core Data wrote
/// (`Tests/Fixtures/oracles`), read-only: nothing is ever written beside them.
@Suite("Commands on stores Apple's Core Data wrote")
struct AppleStoreCommandTests {
    struct Store: Sendable, CustomTestStringConvertible {
        var path: String
        /// A model file for the store from its `oracle.json`, when one names one (else the store's cached model).
        var model: String?
        var testDescription: String { URL(fileURLWithPath: path).lastPathComponent }
    }

    /// One per store of every oracle folder whose fixtures are in place.
    static func stores() -> [Store] {
        var stores: [String: Store] = [:]
        for folder in OracleFixtures.present(OracleFixtures.folders).map(OracleFixtures.url) {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent("oracle.json")),
                let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let cases = root["cases"] as? [[String: Any]]
            else { continue }
            for item in cases {
                guard let store = item["store"] as? String else { continue }
                let path = folder.appendingPathComponent(store).path
                let model = (item["model"] as? String).flatMap { $0 == "Z_MODELCACHE" ? nil : folder.appendingPathComponent($0).path }
                if stores[path]?.model == nil { stores[path] = Store(path: path, model: model) }
            }
        }
        return stores.values.sorted { $0.path < $1.path }
    }

    /// The store's first root entity, read with the sqlite3 shell (immutable).
    private func firstEntity(_ path: String) throws -> String {
        let output = try shell(
            "sqlite3 'file:\(path)?immutable=1' 'SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 AND Z_ENT < 16001 ORDER BY Z_ENT LIMIT 1'"
        ).output
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theRepositorysOwnStoresAreListed() {
        #expect(Self.stores().count >= 5)
    }

    @Test(.needsAllOracles)
    func everyOracleStoreIsListed() {
        #expect(Self.stores().count >= 7)
    }

    @Test(arguments: stores())
    func inspectQueryVerifyAndConvert(_ store: Store) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = store.model.map { ["--model", $0] } ?? []

        let inspect = try runSeedbuild(["inspect", store.path])
        #expect(inspect.status == 0 && inspect.stdout.contains("versionHashes"), "\(inspect.stderr)")

        let entity = try firstEntity(store.path)
        let query = try runSeedbuild(["query", "--store", store.path] + model + [entity, "--limit", "3", "--json"])
        #expect(query.status == 0, "\(query.stderr)")

        if let path = store.model {
            let verify = try runSeedbuild(["verify", store.path, "--model", path])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        }

        let plain = folder.appendingPathComponent("plain.sqlite").path
        let migrate = try runSeedbuild(["migrate", store.path, "--format", "plain", "--out", plain] + model)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let again = try runSeedbuild(["query", "--store", plain, entity, "--limit", "3", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == query.stdout, "the plain copy answers as Apple's store does")

        let leftovers =
            (try? FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: store.path).deletingLastPathComponent().path)) ?? []
        #expect(!leftovers.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") })
    }

    /// A Core Data store that caches no model (Core Data before iOS 8 wrote no Z_MODELCACHE, as
    /// TavantTrade's store shows; or an empty one): every command says so and names --model, and
    /// with the model the store converts and answers.
    @Test(arguments: ["DROP TABLE Z_MODELCACHE", "DELETE FROM Z_MODELCACHE"])
    func aStoreThatCachesNoModelSaysSoAndReadsWithTheModel(_ statement: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nocache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("Old.sqlite").path
        try FileManager.default.copyItem(
            atPath: OracleFixtures.url("alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel_V1.sqlite").path, toPath: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
        _ = try shell("sqlite3 '\(store)' 'PRAGMA journal_mode = DELETE; \(statement);'").output
        let model = OracleFixtures.url("alemar11__CoreDataPlus/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel").path
        let why = statement.hasPrefix("DROP") ? "it has no Z_MODELCACHE table" : "its Z_MODELCACHE table is empty"

        let plain = folder.appendingPathComponent("plain.sqlite").path
        let refused = try runSeedbuild(["migrate", store, "--format", "plain", "--out", plain])
        #expect(refused.status == 66, "\(refused.stderr)")
        #expect(refused.stderr.contains("Old.sqlite: the store caches no model: \(why)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("pass it with --model PATH"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("SQLite error") && !FileManager.default.fileExists(atPath: plain))

        let query = try runSeedbuild(["query", "--store", store, "Person", "--limit", "2"])
        #expect(query.status == 66 && query.stderr.contains("caches no model") && query.stderr.contains("--model"), "\(query.stderr)")

        let inspect = try runSeedbuild(["inspect", store])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("model: the store caches no model: \(why)"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("read it with --model PATH"))
        let inspectJSON = try runSeedbuild(["inspect", store, "--json"])
        let file =
            (try JSONSerialization.jsonObject(with: Data(inspectJSON.stdout.utf8)) as? [String: Any])?["inspectedFile"] as? [String: Any]
        #expect((file?["missingModel"] as? String)?.contains(why) == true, "\(inspectJSON.stdout)")

        let verify = try runSeedbuild(["verify", store], in: folder)
        #expect(verify.status == 64 && verify.stderr.contains("pass --model PATH"), "\(verify.stderr)")
        #expect(try runSeedbuild(["verify", store, "--model", model]).status == 0)

        // With the model it was written with, it converts and answers as the original does.
        let converted = try runSeedbuild(["migrate", store, "--format", "plain", "--model", model, "--out", plain])
        #expect(converted.status == 0, "\(converted.stderr)")
        let original = try runSeedbuild(["query", "--store", store, "--model", model, "Person", "--sort", "lastName", "--json"])
        let copy = try runSeedbuild(["query", "--store", plain, "Person", "--sort", "lastName", "--json"])
        #expect(original.status == 0 && copy.status == 0, "\(original.stderr)\(copy.stderr)")
        #expect(copy.stdout == original.stdout && original.stdout.contains("lastName"))
    }
}
