import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// Stores Apple's Core Data wrote, converted to the plain layout and back with the model that wrote
/// them, compared with Apple's as `shared/tools/coredata-roundtrip.py` compares them: the tables, their
/// columns and SQL types, the indexed columns, `Z_PRIMARYKEY`, the entity hashes and every value,
/// `Z_OPT` included, and persistent history's `Z_PRIMARYKEY` rows and tables (statements and rows).
@Suite("Core Data stores through the plain layout and back")
struct CoreDataRoundTripTests {
    /// The oracle stores whose model is known (`schema` cases), each once.
    static func cases() -> [CoreDataOracleTests.Case] {
        CoreDataOracleTests.cases().filter(\.schema)
    }

    @Test(arguments: cases())
    func comesBackAsAppleWroteIt(_ oracle: CoreDataOracleTests.Case) throws {
        let apple = oracle.folder.appendingPathComponent(try #require(oracle.store)).path
        let model = try CoreDataOracleTests.model(oracle)
        let folder = TemporaryDirectory()
        let plain = folder.url("plain.sqlite").path
        let back = folder.url("back.sqlite").path
        try LayoutConversion.convert(apple, to: .plain, output: plain, model: model)
        try LayoutConversion.convert(plain, to: .coreData, output: back, model: model)
        let differences = try Self.differences(apple: apple, ours: back)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    /// The runtime reads the plain copy (dates since 2001, external-storage markers) as it reads Apple's store.
    @Test(arguments: cases())
    func plainCopyReadsAsApplesStore(_ oracle: CoreDataOracleTests.Case) throws {
        let apple = oracle.folder.appendingPathComponent(try #require(oracle.store))
        let model = try CoreDataOracleTests.model(oracle)
        let folder = TemporaryDirectory()
        let plain = folder.url("plain.sqlite")
        try LayoutConversion.convert(apple.path, to: .plain, output: plain.path, model: model)
        #expect(try StoreMetadata.read(at: plain)[StoreMetadata.Key.coreDataLayout] != nil)
        let objects = try [apple, plain].map { url in try Self.objects(of: url, model: model) }
        #expect(!objects[0].isEmpty)
        #expect(objects[0] == objects[1])
    }

    /// Xcode's compound index keeps the name the framework that wrote the store gave it: the table and
    /// columns at 641, `Z_<Entity>_<properties>` at 865.
    @Test(
        .needsOracles("wireapp__wire-ios-data-model"),
        arguments: OracleFixtures.present([
            "wireapp__wire-ios-data-model/stores/store2-3.wiredatabase", "wireapp__wire-ios-data-model/stores/store2-52-0.wiredatabase",
        ]))
    func compoundIndexKeepsItsName(_ path: String) throws {
        let version = path.contains("2-3") ? "2.3" : "2.52.0"
        let model = try ModelLoader.load(
            OracleFixtures.url("wireapp__wire-ios-data-model/zmessaging.xcdatamodeld/zmessaging\(version).xcdatamodel").path)
        let folder = TemporaryDirectory()
        let plain = folder.url("plain.sqlite").path
        let back = folder.url("back.sqlite").path
        try LayoutConversion.convert(OracleFixtures.url(path).path, to: .plain, output: plain, model: model)
        try LayoutConversion.convert(plain, to: .coreData, output: back, model: model)
        let sql = "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql LIKE '%ZINTERNALISARCHIVED%'"
        let apple = try StoreDatabase.openReadOnly(OracleFixtures.url(path).path).read { db in try String.fetchAll(db, sql: sql) }
        #expect(apple.count == 1)
        #expect(try StoreDatabase.openReadOnly(back).read { db in try String.fetchAll(db, sql: sql) } == apple)
    }

    /// Bytes Core Data keeps in a file of the store's `_EXTERNAL_DATA` folder stay a reference: the
    /// file is copied beside each new store, a missing one refuses the conversion, and a store
    /// without the folder at all keeps its references as they are and says which files it lacks.
    @Test func externalDataFilesTravelWithTheStore() throws {
        let model = try ModelLoader.load(
            json: Data(
                """
                {"name": "Album", "versionIdentifiers": ["1"],
                 "entities": [{"name": "Photo", "attributes": [{"name": "image", "type": "Binary", "externalBinaryStorage": true}]}]}
                """.utf8), source: ModelSource(file: "album.json"))
        let folder = TemporaryDirectory()
        let store = folder.url("Album.sqlite")
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(url: store, storeLayout: .coreData))
        let context = ObjectContext(coordinator: coordinator)
        for _ in 0..<2 { _ = try context.insert(entity: "Photo") }
        try context.save()
        try coordinator.stores.forEach { try $0.close() }
        // As Core Data writes them: one value inline (01), one in a file named by a UUID (02, the name, NUL).
        let name = "7D6A1B40-0C1A-4E8C-9D55-2B1F3B0F6E11"
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(sql: "UPDATE ZPHOTO SET ZIMAGE = ? WHERE Z_PK = 1", arguments: [Data([1, 7, 7])])
            try db.execute(sql: "UPDATE ZPHOTO SET ZIMAGE = ? WHERE Z_PK = 2", arguments: [Data([2]) + Data(name.utf8) + Data([0])])
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
        }
        let external = ExternalDataFolder.url(forStore: store.path)
        #expect(external.path.hasSuffix("/.Album_SUPPORT/_EXTERNAL_DATA"))

        // No folder: the references are kept, and the conversion names the file it did not find.
        let alone = try LayoutConversion.convert(store.path, to: .plain, output: folder.url("alone.sqlite").path)
        #expect(alone.missingExternalFiles == [name])

        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        let refused = #expect(throws: StoreError.self) {
            try LayoutConversion.convert(store.path, to: .plain, output: folder.url("refused.sqlite").path)
        }
        #expect(refused?.message.contains(name) == true)
        #expect(!FileManager.default.fileExists(atPath: folder.url("refused.sqlite").path))

        try Data([9, 8, 7]).write(to: external.appendingPathComponent(name))
        let plain = folder.url("plain.sqlite").path
        let back = folder.url("back.sqlite").path
        #expect(try LayoutConversion.convert(store.path, to: .plain, output: plain).missingExternalFiles.isEmpty)
        try LayoutConversion.convert(plain, to: .coreData, output: back)
        for path in [plain, back] {
            #expect(
                FileManager.default.contents(atPath: ExternalDataFolder.url(forStore: path).appendingPathComponent(name).path)
                    == Data([9, 8, 7]))
        }
        #expect(try Self.differences(apple: store.path, ours: back).isEmpty)
        let stored = try StoreDatabase.openReadOnly(plain).read { db in try Data.fetchAll(db, sql: "SELECT image FROM Photo ORDER BY Z_PK")
        }
        #expect(stored == [Data([1, 7, 7]), Data([2]) + Data(name.utf8) + Data([0])], "the plain copy keeps Core Data's markers")
    }

    /// What differs between two Core Data stores, as the round-trip tool reports it.
    static func differences(apple: String, ours: String) throws -> [String] {
        let (a, o) = (try StoreDatabase.openReadOnly(apple), try StoreDatabase.openReadOnly(ours))
        defer {
            try? a.close()
            try? o.close()
        }
        return try a.read { appleDB in
            try o.read { ourDB in
                var problems: [String] = []
                let (appleTables, ourTables) = (try tables(appleDB), try tables(ourDB))
                if appleTables != ourTables {
                    problems.append(
                        "tables: Apple's only \(appleTables.subtracting(ourTables).sorted()), ours only \(ourTables.subtracting(appleTables).sorted())"
                    )
                }
                for table in appleTables.intersection(ourTables).sorted() {
                    let columns = try Row.fetchAll(appleDB, sql: "PRAGMA table_info(\(table))").map {
                        "\($0["name"] as String) \(($0["type"] as String).uppercased())"
                    }
                    let ourColumns = try Row.fetchAll(ourDB, sql: "PRAGMA table_info(\(table))").map {
                        "\($0["name"] as String) \(($0["type"] as String).uppercased())"
                    }
                    guard Set(columns) == Set(ourColumns) else {
                        problems.append(
                            "\(table) columns: Apple's only \(Set(columns).subtracting(ourColumns).sorted()), ours only \(Set(ourColumns).subtracting(columns).sorted())"
                        )
                        continue
                    }
                    let names = columns.map { quoteIdentifier(String($0.split(separator: " ")[0])) }
                    let selected = table == "Z_PRIMARYKEY" ? "Z_ENT, Z_NAME, Z_SUPER" : names.joined(separator: ", ")
                    let order =
                        table == "Z_PRIMARYKEY" || names.contains("\"Z_PK\"")
                        ? names[0] == "\"Z_ENT\"" ? "Z_ENT" : "Z_PK" : names.joined(separator: ", ")
                    let sql = "SELECT \(selected) FROM \(table) ORDER BY \(order)"
                    let (rows, ourRows) = (try Row.fetchAll(appleDB, sql: sql), try Row.fetchAll(ourDB, sql: sql))
                    guard rows.count == ourRows.count else {
                        problems.append("\(table): \(rows.count) rows, ours \(ourRows.count)")
                        continue
                    }
                    for (row, ourRow) in zip(rows, ourRows) where row != ourRow {
                        let column = row.columnNames.first { row[$0] as DatabaseValue != ourRow[$0] as DatabaseValue } ?? "?"
                        problems.append(
                            "\(table).\(column): Apple's \(row[column] as DatabaseValue), ours \(ourRow[column] as DatabaseValue)")
                        break
                    }
                }
                let (indexes, ourIndexes) = (try indexedColumns(appleDB), try indexedColumns(ourDB))
                if indexes != ourIndexes {
                    problems.append(
                        "indexed columns: Apple's only \(indexes.subtracting(ourIndexes).sorted()), ours only \(ourIndexes.subtracting(indexes).sorted())"
                    )
                }
                let (history, ourHistory) = (try historyStatements(appleDB), try historyStatements(ourDB))
                if history != ourHistory {
                    problems.append(
                        "persistent history's statements: Apple's only \(history.subtracting(ourHistory).sorted()), ours only \(ourHistory.subtracting(history).sorted())"
                    )
                }
                let hashes = try [appleDB, ourDB].map { db in
                    let plist = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
                    return (try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])?[
                        "NSStoreModelVersionHashes"] as? [String: Data]
                }
                if hashes[0] != hashes[1] { problems.append("NSStoreModelVersionHashes differ") }
                return problems
            }
        }
    }

    /// The model's tables and those of the persistent history `Z_PRIMARYKEY` numbers (`A` and the entity's name).
    private static func tables(_ db: Database) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'Z%' AND name NOT IN ('Z_METADATA', 'Z_MODELCACHE') OR name IN (\(historyTables)))"
            ))
    }

    /// SQL selecting the names of persistent history's tables from `Z_PRIMARYKEY`.
    private static let historyTables = "SELECT 'A' || Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT >= 16001"

    /// `CREATE TABLE` and `CREATE INDEX` of persistent history's tables, as the store has them.
    private static func historyStatements(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE tbl_name IN (\(historyTables)) AND sql IS NOT NULL"))
    }

    /// Each index of the model's tables as `table(columns)`, `unique` marked.
    static func indexedColumns(_ db: Database) throws -> Set<String> {
        var result = Set<String>()
        for row in try Row.fetchAll(
            db, sql: "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name LIKE 'Z%'")
        {
            let (name, table): (String, String) = (row[0], row[1])
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name])
            let unique =
                try Bool.fetchOne(db, sql: "SELECT \"unique\" FROM pragma_index_list(?) WHERE name = ?", arguments: [table, name]) ?? false
            result.insert("\(table)(\(columns.joined(separator: ", ")))\(unique ? " unique" : "")")
        }
        return result
    }

    /// Every object of every entity as the runtime reads it, read-only: entity, key and values by name.
    private static func objects(of url: URL, model: Model) throws -> [String] {
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addStore(StoreDescription(url: url, isReadOnly: true))
        defer { try? store.close() }
        let context = ObjectContext(coordinator: coordinator)
        var objects: [String] = []
        for entity in model.entities where !entity.isAbstract {
            for object in try context.fetch(FetchRequest(entity: entity.name)) where object.entity.name == entity.name {
                let values = try model.allAttributes(of: entity).filter(\.isStored).map { "\($0.name)=\(try object.value(for: $0.name))" }
                objects.append("\(entity.name) \(object.objectID) \(values.joined(separator: " "))")
            }
        }
        return objects.sorted()
    }
}
