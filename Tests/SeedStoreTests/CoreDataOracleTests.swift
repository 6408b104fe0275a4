import Foundation
import GRDB
import SeedModel
import SeedStore
import Testing

/// The stores and compiled models Apple's Core Data wrote (`../shared/coredata/oracles`): every
/// case of every folder's `oracle.json` must give exactly Apple's hashes.
@Suite("Core Data oracles")
struct CoreDataOracleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var folder: URL
        var label: String
        var model: String
        var store: String?
        var versionInfo: String?
        var version: String?
        var schema: Bool

        var testDescription: String { "\(folder.lastPathComponent): \(label)" }
    }

    /// `../shared/coredata/oracles` beside the repository, where CI and every developer have it.
    static let oracles = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/coredata/oracles")

    static func cases() -> [Case] {
        let folders = (try? FileManager.default.contentsOfDirectory(at: oracles, includingPropertiesForKeys: nil)) ?? []
        return folders.sorted { $0.path < $1.path }.flatMap { folder -> [Case] in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent("oracle.json")),
                let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let cases = root["cases"] as? [[String: Any]]
            else { return [] }
            return cases.map { item in
                Case(
                    folder: folder, label: item["label"] as? String ?? "?", model: item["model"] as? String ?? "",
                    store: item["store"] as? String, versionInfo: item["versioninfo"] as? String,
                    version: item["version"] as? String, schema: item["schema"] as? Bool ?? false)
            }
        }
    }

    @Test func oraclesArePresent() {
        // Guards the parameterised test below against passing on no cases at all.
        #expect(Self.cases().count >= 20, "no oracle cases found in \(Self.oracles.path); the shared folder belongs beside the repository")
    }

    @Test(arguments: cases())
    func hashesEqualApples(_ oracle: Case) throws {
        let model = try Self.model(oracle)
        let expected = try Self.appleHashes(oracle)
        let ours = model.entityVersionHashes
        #expect(!expected.isEmpty)
        for name in Set(expected.keys).union(ours.keys).sorted() {
            #expect(ours[name] == expected[name], "\(name): ours \(ours[name]?.base64EncodedString() ?? "missing"), Apple's \(expected[name]?.base64EncodedString() ?? "missing")")
        }
        if let store = oracle.store {
            let metadata = try Self.storeMetadata(oracle.folder.appendingPathComponent(store))
            if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
                #expect(model.versionChecksum == checksum)
            }
            if let digest = metadata["NSStoreModelVersionHashesDigest"] as? String {
                #expect(model.versionHashesDigest == digest)
            }
        }
        if let checksum = try Self.versionInfoChecksum(oracle) {
            #expect(model.versionChecksum == checksum)
        }
    }

    /// The case's model: an `.xcdatamodel` or `.mom` by path, or `Z_MODELCACHE`, the model cached in the store.
    static func model(_ oracle: Case) throws -> Model {
        if oracle.model == "Z_MODELCACHE" {
            let store = try #require(oracle.store, "a Z_MODELCACHE case names its store")
            return try CoreDataStoreFile.cachedModel(at: oracle.folder.appendingPathComponent(store))
        }
        return try ModelLoader.load(oracle.folder.appendingPathComponent(oracle.model).path)
    }

    /// The version's checksum in the `.momd`'s `VersionInfo.plist`, when momc wrote one.
    static func versionInfoChecksum(_ oracle: Case) throws -> String? {
        guard let infoPath = oracle.versionInfo, let version = oracle.version else { return nil }
        let info = try Data(contentsOf: oracle.folder.appendingPathComponent(infoPath))
        let plist = try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any]
        return (plist?["NSManagedObjectModel_VersionChecksums"] as? [String: String])?[version]
    }

    /// Apple's hashes: the store's `NSStoreModelVersionHashes`, or the `.momd`'s `VersionInfo.plist`.
    static func appleHashes(_ oracle: Case) throws -> [String: Data] {
        if let store = oracle.store {
            let metadata = try storeMetadata(oracle.folder.appendingPathComponent(store))
            return try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        }
        let infoPath = try #require(oracle.versionInfo)
        let version = try #require(oracle.version)
        let info = try Data(contentsOf: oracle.folder.appendingPathComponent(infoPath))
        let plist = try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any]
        let versions = try #require(plist?["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        return try #require(versions[version])
    }

    /// The `Z_METADATA` property list of a Core Data store, opened immutable: other test runs
    /// may read the shared oracles at the same time, and a WAL store's read-only open can be busy.
    static func storeMetadata(_ url: URL) throws -> [String: Any] {
        let queue = try StoreFile.openReadOnly(url.path)
        defer { try? queue.close() }
        let blob = try #require(try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") })
        let plist = try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any]
        return try #require(plist)
    }
}
