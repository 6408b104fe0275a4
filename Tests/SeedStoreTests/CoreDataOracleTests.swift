import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// The stores and compiled models Apple's Core Data wrote (`Tests/Fixtures/oracles`): every
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

    /// `Tests/Fixtures/oracles`: those in the repository, and those `scripts/fetch-fixtures` put in place.
    static let oracles = OracleFixtures.root

    /// Every case of every oracle folder whose fixtures are in place.
    static func cases() -> [Case] {
        OracleFixtures.present(OracleFixtures.folders) { $0 }.flatMap { name -> [Case] in
            let folder = oracles.appendingPathComponent(name)
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

    /// The cases of the oracles the repository carries itself: every clone runs these.
    @Test func theRepositorysOwnOraclesArePresent() {
        // Guards the parameterised tests below against passing on no cases at all.
        #expect(Self.cases().filter { !OracleFixtures.fetchedFolders.contains($0.folder.lastPathComponent) }.count >= 20)
        // Apple's stores are in WAL mode: opened other than immutable, SQLite would leave -wal and
        // -shm files in the fixtures (and lock them between tests). Every reader here opens them immutable.
        let leftovers = (FileManager.default.enumerator(atPath: Self.oracles.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") || $0.hasSuffix("-journal") }
        #expect(leftovers.isEmpty, "files written into the oracle fixtures: \(leftovers)")
    }

    /// With the fetched fixtures in place (as on CI here), every folder gives its cases.
    @Test(.needsAllOracles)
    func everyOracleFolderGivesItsCases() {
        #expect(Set(Self.cases().map(\.folder.lastPathComponent)) == Set(OracleFixtures.folders))
    }

    @Test(arguments: cases())
    func hashesEqualApples(_ oracle: Case) throws {
        let model = try Self.model(oracle)
        let expected = try Self.appleHashes(oracle)
        let ours = model.entityVersionHashes
        #expect(!expected.isEmpty)
        for name in Set(expected.keys).union(ours.keys).sorted() {
            #expect(
                ours[name] == expected[name],
                "\(name): ours \(ours[name]?.base64EncodedString() ?? "missing"), Apple's \(expected[name]?.base64EncodedString() ?? "missing")"
            )
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

    @Test(arguments: cases().filter(\.schema))
    func layoutEqualsApples(_ oracle: Case) throws {
        let model = try Self.model(oracle)
        let queue = try StoreDatabase.openReadOnly(oracle.folder.appendingPathComponent(try #require(oracle.store)).path)
        defer { try? queue.close() }
        try queue.read { db in
            // Numbered from the model alone; compound indexes named as the framework that wrote the
            // store names them, and a self-referential many-to-many's join table as the store has it
            // (no rule tells its name: docs/store-format.md).
            let conventions = try #require(try CoreDataConventions.read(from: db))
            let layout = try CoreDataSchema(
                model: model, configuration: "Default",
                conventions: CoreDataConventions(frameworkVersion: conventions.frameworkVersion, joinTableNames: conventions.joinTableNames)
            )
            // The persistent-history tables (and their entity numbers from 16001) come from a store
            // option (NSPersistentHistoryTrackingKey), not from the model.
            let fixed = Set(["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
            let appleTables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
            .filter { !fixed.contains($0) }
            let ours =
                layout.tables.map { ($0.name, $0.columns.map { [$0.name, $0.type] }) }
                + layout.joinTables.map { ($0.name, $0.columns.map { [$0.name, $0.type] }) }
            #expect(Set(ours.map(\.0)) == Set(appleTables))
            for (table, columns) in ours where appleTables.contains(table) {
                // Names, SQL types and order.
                let apple = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { [$0["name"] as String, $0["type"] as String] }
                #expect(columns == apple, "\(table)")
            }
            // The same columns indexed (names vary with the framework version; FORMAT.md §3).
            let indexed = try Self.indexedColumns(db, statements: layout.indexStatements(model: model))
            #expect(
                indexed.ours == indexed.apple,
                "ours only \(indexed.ours.subtracting(indexed.apple)), Apple's only \(indexed.apple.subtracting(indexed.ours))")
            // A store migrated with an entity rename keeps the old name in Z_PRIMARYKEY (CoreDataPlus's V2).
            let renamed = Dictionary(
                model.entities.compactMap { entity in entity.renamingIdentifier.map { ($0, entity.name) } },
                uniquingKeysWith: { first, _ in first })
            let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16001 ORDER BY Z_ENT")
                .map { row in CoreDataSchema.PrimaryKeyRow(entity: row[0], name: renamed[row[1] as String] ?? row[1], superEntity: row[2]) }
            #expect(layout.primaryKeyRows == rows)
            // Laid out for the store as it is, the renamed entity keeps its old name, as Core Data left it.
            let stored = try CoreDataSchema(
                model: model, configuration: "Default", conventions: try #require(try CoreDataConventions.read(from: db)))
            #expect(
                stored.primaryKeyRows.map(\.name)
                    == (try String.fetchAll(db, sql: "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16001 ORDER BY Z_ENT")))
            let fixedDDL = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('Z_PRIMARYKEY', 'Z_METADATA') ORDER BY name DESC")
            #expect(fixedDDL == Array(CoreDataSchema.fixedTableStatements.prefix(2)))
        }
    }

    /// The (table, columns, unique) of Apple's indexes in the open store and of `statements`, made in
    /// an empty in-memory database with the store's tables (the persistent-history tables aside).
    static func indexedColumns(_ db: Database, statements: [String]) throws -> (ours: Set<String>, apple: Set<String>) {
        let tables = try String.fetchAll(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND sql IS NOT NULL")
        let scratch = try DatabaseQueue()
        let ours = try scratch.write { scratchDB in
            for statement in tables + statements { try scratchDB.execute(sql: statement) }
            return try CoreDataRoundTripTests.indexedColumns(scratchDB)
        }
        return (ours, try CoreDataRoundTripTests.indexedColumns(db))
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
        let queue = try StoreDatabase.openReadOnly(url.path)
        defer { try? queue.close() }
        let blob = try #require(try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") })
        let plist = try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any]
        return try #require(plist)
    }
}

@Suite("Core Data's Z_METADATA")
struct CoreDataMetadataTests {
    @Test(arguments: CoreDataOracleTests.cases().filter { $0.store != nil })
    func oracleMetadataReads(_ oracle: CoreDataOracleTests.Case) throws {
        let url = oracle.folder.appendingPathComponent(try #require(oracle.store))
        let queue = try StoreDatabase.openReadOnly(url.path)
        defer { try? queue.close() }
        let row = try #require(try queue.read { db in try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA") })
        let metadata = try CoreDataMetadata.read(row["Z_PLIST"], uuid: row["Z_UUID"], path: url.path)
        let apple = try CoreDataOracleTests.storeMetadata(url)
        #expect(metadata.versionHashes == apple["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(metadata.storeUUID == row["Z_UUID"] && metadata[StoreMetadata.Key.storeType] == "SQLite")

        // Written back, Core Data's keys are all there and the hashes, checksum and digest agree.
        let written = try CoreDataMetadata.propertyList(metadata)
        let list = try #require(try PropertyListSerialization.propertyList(from: written, format: nil) as? [String: Any])
        #expect(list["NSStoreModelVersionHashes"] as? [String: Data] == apple["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(list["NSStoreModelVersionHashesVersion"] as? Int == 3 && list["NSStoreType"] as? String == "SQLite")
        if let checksum = apple["NSStoreModelVersionChecksumKey"] as? String {
            #expect(list["NSStoreModelVersionChecksumKey"] as? String == checksum)
        }
        if let digest = apple["NSStoreModelVersionHashesDigest"] as? String {
            #expect(list["NSStoreModelVersionHashesDigest"] as? String == digest)
        }
        #expect(Set(list.keys).isSuperset(of: ["NSStoreModelVersionIdentifiers", "NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel"]))
    }

    @Test func seedbuildKeysTravelAsExtraKeys() throws {
        var metadata = StoreMetadata()
        metadata[StoreMetadata.Key.versionHashes] = .object(["A": .string(String(repeating: "ab", count: 32))])
        metadata[StoreMetadata.Key.dataVersion] = .integer(202611231200)
        metadata[StoreMetadata.Key.rowCounts] = .object(["A": .integer(3)])
        metadata["migratedFrom"] = .object(["modelName": .null, "contentDigest": .string("x")])
        let read = try CoreDataMetadata.read(try CoreDataMetadata.propertyList(metadata), uuid: "U", path: "test")
        #expect(read.dataVersion == 202611231200 && read.rowCounts == ["A": 3] && read.storeUUID == "U")
        #expect(read["migratedFrom"] == .object(["contentDigest": .string("x")]), "a null has no property-list form")
        #expect(read.versionHashes == metadata.versionHashes)
    }
}

@Suite("Core Data's stored values")
struct CoreDataValuesTests {
    private static let oracles = CoreDataOracleTests.oracles

    @Test func datesAndUUIDsOfAnAppleStoreDecode() throws {
        let url = Self.oracles.appendingPathComponent("alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel_V1.sqlite")
        let model = try ModelLoader.load(
            Self.oracles.appendingPathComponent("alemar11__CoreDataPlus/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel").path)
        let person = try #require(model.entity(named: "Person"))
        let (updatedAt, id) = (try #require(person.attribute(named: "updatedAt")), try #require(person.attribute(named: "id")))
        let queue = try StoreDatabase.openReadOnly(url.path)
        defer { try? queue.close() }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT ZUPDATEDAT, ZID FROM ZPERSON") }
        #expect(!rows.isEmpty)
        for row in rows {
            let date = try CoreDataValues.decode(StoreValue(row["ZUPDATEDAT"] as DatabaseValue), for: updatedAt)
            let seconds = try #require(date.doubleValue)
            // Written in 2021 by Apple's code: seconds since 2001 read back as a date of that year.
            #expect(Calendar(identifier: .gregorian).component(.year, from: Date(timeIntervalSince1970: seconds)) == 2021)
            let uuid = try CoreDataValues.decode(StoreValue(row["ZID"] as DatabaseValue), for: id)
            #expect(uuid.stringValue.flatMap(UUID.init(uuidString:)) != nil)
            // Back to seconds since 2001, equal to the microsecond (the sum's rounding aside).
            let stored = try #require(StoreValue(row["ZUPDATEDAT"] as DatabaseValue).doubleValue)
            #expect(abs((CoreDataValues.encode(date, for: updatedAt).doubleValue ?? 0) - stored) < 1e-6)
            #expect(CoreDataValues.encode(uuid, for: id) == StoreValue(row["ZID"] as DatabaseValue))
        }
    }

    @Test func externalStorageMarkers() throws {
        let photo = Attribute(name: "photo", type: .binary, allowsExternalBinaryDataStorage: true)
        let bytes = Data([1, 2, 3])
        #expect(CoreDataValues.encode(.blob(bytes), for: photo) == .blob(Data([1, 1, 2, 3])), "inline: 01 then the bytes")
        #expect(try CoreDataValues.decode(.blob(Data([1, 1, 2, 3])), for: photo) == .blob(bytes))
        let folder = TemporaryDirectory()
        try Data([9, 9]).write(to: folder.url("F00D"))
        #expect(
            try CoreDataValues.decode(.blob(Data([2]) + Data("F00D".utf8) + Data([0])), for: photo, externalData: folder.url)
                == .blob(Data([9, 9])))
        let missing = #expect(throws: StoreError.self) {
            try CoreDataValues.decode(.blob(Data([2]) + Data("GONE".utf8)), for: photo, externalData: folder.url)
        }
        #expect(missing?.message.contains("external file GONE") == true)
    }

    /// Apple's store holds both kinds: inline (01) and external (02) images.
    @Test(.needsOracles("wireapp__wire-ios-data-model"))
    func externalStorageMarkersOfAnAppleStore() throws {
        let url = Self.oracles.appendingPathComponent("wireapp__wire-ios-data-model/stores/store2-52-0.wiredatabase")
        let queue = try StoreDatabase.openReadOnly(url.path)
        defer { try? queue.close() }
        let inline = try #require(
            try queue.read { db in
                try Data.fetchOne(db, sql: "SELECT ZIMAGESMALLPROFILEDATA FROM ZUSER WHERE ZIMAGESMALLPROFILEDATA IS NOT NULL")
            })
        let image = Attribute(name: "imageSmallProfileData", type: .binary, allowsExternalBinaryDataStorage: true)
        #expect(try CoreDataValues.decode(.blob(inline), for: image) == .blob(inline.dropFirst()))
    }

    @Test func decimalsReadBackAsNumbers() throws {
        let price = Attribute(name: "price", type: .decimal)
        #expect(CoreDataValues.encode(.text("10.5"), for: price) == .real(10.5))
        #expect(try CoreDataValues.decode(.real(10.5), for: price) == .text("10.5"))
        #expect(try CoreDataValues.decode(.integer(3), for: price) == .text("3"))
    }
}
