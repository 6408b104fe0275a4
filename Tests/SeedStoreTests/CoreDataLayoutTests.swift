import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// Stores the runtime writes in Core Data's layout: the same tables, columns, types, entity numbers
/// and metadata keys as the stores Apple's framework wrote, and objects that read and write back.
@Suite("Core Data layout")
struct CoreDataLayoutTests {
    @Test(arguments: CoreDataOracleTests.cases().filter(\.schema))
    func createdStoreEqualsApples(_ oracle: CoreDataOracleTests.Case) throws {
        let model = try CoreDataOracleTests.model(oracle)
        let folder = TemporaryDirectory()
        let url = folder.url("ours.sqlite")
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addStore(StoreDescription(url: url, storeLayout: .coreData))
        try store.close()

        let apple = try Self.shape(of: oracle.folder.appendingPathComponent(try #require(oracle.store)))
        let ours = try Self.shape(of: url)
        // A new store names a self-referential many-to-many's table after the relationship that sorts
        // last (docs/store-format.md); where Apple's store took the other name (Wire's 2.3), its table
        // is compared under the new store's name.
        let appleConventions = try StoreDatabase.openReadOnly(oracle.folder.appendingPathComponent(try #require(oracle.store)).path).read {
            db in
            try #require(try CoreDataConventions.read(from: db))
        }
        let current = try CoreDataSchema(model: model, configuration: "Default")
        let written = try CoreDataSchema(
            model: model, configuration: "Default",
            conventions: CoreDataConventions(
                frameworkVersion: appleConventions.frameworkVersion, joinTableNames: appleConventions.joinTableNames))
        var currentNames: [String: String] = [:]
        for join in written.joinTables {
            let pair = Set([join.relationship.name, join.inverse.name])
            currentNames[join.name] =
                current.joinTables.first {
                    Set([$0.relationship.name, $0.inverse.name]) == pair && $0.relationship.entity == join.relationship.entity
                }?.name
        }
        let appleTables = Dictionary(uniqueKeysWithValues: apple.tables.map { (currentNames[$0.key] ?? $0.key, $0.value) })
        #expect(Set(ours.tables.keys) == Set(appleTables.keys))
        for (table, columns) in appleTables {
            #expect(ours.tables[table] == columns, "\(table)")
        }
        let renamed = Dictionary(
            model.entities.compactMap { entity in entity.renamingIdentifier.map { ($0, entity.name) } },
            uniquingKeysWith: { first, _ in first })
        #expect(ours.primaryKeys == apple.primaryKeys.map { row in [row[0], renamed[row[1]] ?? row[1], row[2]] })
        // Every key Core Data wrote is there (the app's own keys aside), with equal hashes; ours come on top.
        let coreDataKeys = Set(apple.metadata.keys.filter { $0.hasPrefix("NS") || $0.hasPrefix("_NS") })
        #expect(coreDataKeys.count >= 5)
        #expect(coreDataKeys.subtracting(ours.metadata.keys).isEmpty, "missing \(coreDataKeys.subtracting(ours.metadata.keys))")
        #expect(
            ours.metadata["NSStoreModelVersionHashes"] as? [String: Data] == apple.metadata["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(ours.metadata["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(ours.metadata["NSStoreType"] as? String == "SQLite")
    }

    struct Shape {
        /// Table → its columns as "NAME TYPE", sorted (Core Data's order within a group varies).
        var tables: [String: [String]]
        /// `Z_PRIMARYKEY` rows as [Z_ENT, Z_NAME, Z_SUPER], model entities only.
        var primaryKeys: [[String]]
        var metadata: [String: Any]
    }

    /// What a reader compares of a Core Data store, read immutable.
    static func shape(of url: URL) throws -> Shape {
        let queue = try StoreDatabase.openReadOnly(url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            // The persistent-history tables come from a store option, not from the model.
            let skipped = Set(["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
            var tables: [String: [String]] = [:]
            for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            where !skipped.contains(name) {
                tables[name] = try Row.fetchAll(db, sql: "PRAGMA table_info(\(name))").map {
                    "\($0["name"] as String) \($0["type"] as String)"
                }.sorted()
            }
            let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16001 ORDER BY Z_ENT")
                .map { [String($0[0] as Int), $0[1] as String, String($0[2] as Int)] }
            let blob = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
            let metadata = try #require(try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any])
            return Shape(tables: tables, primaryKeys: keys, metadata: metadata)
        }
    }

    /// The shop model in Core Data's layout: the file holds Core Data's forms after a save, and
    /// `Z_OPT` counts updates (the other runtime suites run the shop in both layouts).
    @Test func savedObjectsAreInCoreDatasForms() throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, layout: .coreData)
        let context = ObjectContext(coordinator: coordinator)
        let objects = try populateShop(context)
        try context.save()
        let url = try #require(coordinator.stores.first { $0.storeDescription.configuration == "Catalog" }?.storeDescription.url)
        // The store is open in WAL mode: read it through the log, not immutable.
        var readOnly = Configuration()
        readOnly.readonly = true
        func read<T>(_ body: (Database) throws -> T) throws -> T {
            let queue = try DatabaseQueue(path: url.path, configuration: readOnly)
            defer { try? queue.close() }
            return try queue.read(body)
        }
        try read { db in
            // A-2 (stock 0) was added 1_700_000_000 seconds after 1970: 978_307_200 fewer after 2001.
            #expect(try Double.fetchOne(db, sql: "SELECT ZADDED FROM ZPRODUCT WHERE ZSKU = 'A-2'") == 1_700_000_000 - 978_307_200)
            #expect(try Int.fetchOne(db, sql: "SELECT max(Z_OPT) FROM ZPRODUCT") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Product'") == 5)
            #expect(
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM ZPRODUCT p JOIN ZCATEGORY c ON c.Z_PK = p.ZCATEGORY WHERE c.ZNAME = 'Fruit'") == 3)
            let joins = try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\' AND name NOT IN ('Z_PRIMARYKEY', 'Z_METADATA', 'Z_MODELCACHE')"
            )
            #expect(joins.count == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(joins[0])") == 3)
        }
        let hammer = try #require(objects["H-1"])
        hammer["price"] = 13.5
        try context.save()
        #expect(try read { db in try Int.fetchOne(db, sql: "SELECT Z_OPT FROM ZPRODUCT WHERE ZSKU = 'H-1'") } == 2)
        // A new object is numbered after Z_MAX, which follows.
        let nail = try context.insert(entity: "Product")
        nail["sku"] = "N-1"
        try nail.setObject(try hammer.object(forRelationship: "category"), forRelationship: "category")
        try context.save()
        #expect(try read { db in try Int.fetchOne(db, sql: "SELECT Z_PK FROM ZPRODUCT WHERE ZSKU = 'N-1'") } == 6)
        #expect(try read { db in try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Product'") } == 6)
    }
}
