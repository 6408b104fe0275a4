import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// Stores Apple's Core Data wrote, opened by the runtime read-only under their own cached model,
/// and turned into the plain layout and back with nothing lost.
@Suite("Stores Apple's Core Data wrote")
struct AppleStoreTests {
    /// One case per oracle store (several cases may name the same store).
    static func stores() -> [CoreDataOracleTests.Case] {
        var seen = Set<String>()
        return CoreDataOracleTests.cases().filter { oracle in
            guard let store = oracle.store else { return false }
            return seen.insert(oracle.folder.appendingPathComponent(store).path).inserted
        }
    }

    /// Rows of each entity (not its sub-entities), counted with Core Data's own numbers.
    static func appleCounts(_ url: URL, model: Model) throws -> [String: Int] {
        let queue = try StoreDatabase.openReadOnly(url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            var counts: [String: Int] = [:]
            // A store migrated with an entity rename keeps the old name in Z_PRIMARYKEY (CoreDataPlus's V2).
            let renamed = Dictionary(
                model.entities.compactMap { entity in entity.renamingIdentifier.map { ($0, entity.name) } },
                uniquingKeysWith: { first, _ in first })
            let numbers = try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY WHERE Z_ENT < 16001")
            for row in numbers {
                let name = renamed[row[0] as String] ?? row[0]
                guard let entity = model.entity(named: name), !entity.isAbstract else { continue }
                let root = model.inheritanceChain(of: entity).first?.name ?? name
                counts[name] =
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM Z\(root.uppercased()) WHERE Z_ENT = ?", arguments: [row[1] as Int]) ?? 0
            }
            return counts
        }
    }

    @Test(arguments: stores())
    func opensReadOnlyAndAnswersFetches(_ oracle: CoreDataOracleTests.Case) throws {
        let url = oracle.folder.appendingPathComponent(try #require(oracle.store))
        let model = try CoreDataOracleTests.model(oracle)
        let expected = try Self.appleCounts(url, model: model)
        #expect(!expected.isEmpty)
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addStore(StoreDescription(url: url, isReadOnly: true))
        defer { try? store.close() }
        let context = ObjectContext(coordinator: coordinator)
        for (entity, count) in expected.sorted(by: { $0.key < $1.key }) {
            let fetched = try context.fetch(FetchRequest(entity: entity)).filter { $0.entity.name == entity }
            #expect(fetched.count == count, "\(entity)")
            // Every value decodes (dates since 1970, UUIDs as text) without a fault.
            for object in fetched.prefix(20) {
                for attribute in object.entity.attributes where attribute.isStored {
                    _ = try object.value(for: attribute.name)
                }
            }
        }
    }

    @Test(arguments: stores())
    func convertsToPlainAndBack(_ oracle: CoreDataOracleTests.Case) throws {
        let url = oracle.folder.appendingPathComponent(try #require(oracle.store))
        let model = try CoreDataOracleTests.model(oracle)
        let folder = TemporaryDirectory()
        let plain = folder.url("plain.sqlite").path
        let back = folder.url("back.sqlite").path
        try LayoutConversion.convert(url.path, to: .plain, output: plain, model: model)
        #expect(try StoreFile.layout(at: plain) == .plain)
        try LayoutConversion.convert(plain, to: .coreData, output: back)
        #expect(try StoreFile.layout(at: back) == .coreData)

        let expected = try Self.appleCounts(url, model: model)
        #expect(try Self.appleCounts(URL(fileURLWithPath: back), model: model) == expected)
        let queue = try StoreDatabase.openReadOnly(plain)
        let schema = try queue.read { db in try StoreDatabase.embeddedSchema(db, path: plain) }
        for (entity, count) in expected {
            #expect(try queue.read { db in try schema.rowCount(of: entity, in: db) } == Int64(count), "\(entity)")
        }
        try queue.close()
        // The hashes travel: the converted store still fits the model Core Data cached.
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: back)).hashDifferences(from: model, embeddedModel: nil).isEmpty)
        // And the round trip changes no value: converted to plain again, the content is the same.
        let again = folder.url("again.sqlite").path
        try LayoutConversion.convert(back, to: .plain, output: again)
        let digests = try [plain, again].map { path in
            try StoreDatabase.openReadOnly(path).read { db in
                try ContentDigest.compute(db, schema: StoreDatabase.embeddedSchema(db, path: path))
            }
        }
        #expect(digests[0] == digests[1])
    }
}
