import Foundation
import Testing

/// `inspect`, `query`, `verify` and `migrate --format` on every store Apple's Core Data wrote
/// (`../shared/coredata/oracles`), read-only: nothing is ever written beside them.
@Suite("Commands on stores Apple's Core Data wrote")
struct AppleStoreCommandTests {
    struct Store: Sendable, CustomTestStringConvertible {
        var path: String
        /// A model file for the store from its `oracle.json`, when one names one (else the store's cached model).
        var model: String?
        var testDescription: String { URL(fileURLWithPath: path).lastPathComponent }
    }

    static let oracles = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/coredata/oracles")

    static func stores() -> [Store] {
        let folders = (try? FileManager.default.contentsOfDirectory(at: oracles, includingPropertiesForKeys: nil)) ?? []
        var stores: [String: Store] = [:]
        for folder in folders {
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
        let output = try shellOutput("sqlite3 'file:\(path)?immutable=1' 'SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 AND Z_ENT < 16001 ORDER BY Z_ENT LIMIT 1'")
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func everyOracleStoreIsListed() {
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

        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: store.path).deletingLastPathComponent().path)) ?? []
        #expect(!leftovers.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") })
    }
}
