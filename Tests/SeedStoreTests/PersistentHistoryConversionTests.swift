import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// A store that tracked Core Data's persistent history keeps it through the plain layout and back:
/// the `Z_PRIMARYKEY` rows numbered from 16001 with their `Z_MAX`, and the `A` tables with their
/// statements and rows (docs/store-format.md, "Stores converted from Core Data's layout").
@Suite("Persistent history through the plain layout and back")
struct PersistentHistoryConversionTests {
    /// CoreDataPlus's SampleModel2 stores, written by Core Data with history tracking on.
    @Test(
        arguments: OracleFixtures.present([
            "alemar11__CoreDataPlus/SampleModel2/Fixtures/SampleModel2_V1.sqlite",
            "alemar11__CoreDataPlus/SampleModel2/Fixtures/SampleModel2_V2.sqlite",
        ]))
    func applesStoreKeepsItsHistory(_ path: String) throws {
        let apple = OracleFixtures.url(path)
        let model = try CoreDataStoreFile.cachedModel(at: apple)
        let folder = TemporaryDirectory()
        let plain = folder.url("plain.sqlite").path
        let back = folder.url("back.sqlite").path
        try LayoutConversion.convert(apple.path, to: .plain, output: plain)
        try LayoutConversion.convert(plain, to: .coreData, output: back, model: model)
        let differences = try CoreDataRoundTripTests.differences(apple: apple.path, ours: back)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        let history = try Self.historyKeys(apple.path)
        #expect(history.map(\.name) == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
        #expect(try Self.historyKeys(back) == history)
        let layout = try #require(try StoreMetadata.read(at: URL(fileURLWithPath: plain))[StoreMetadata.Key.coreDataLayout]?.objectValue)
        #expect(layout["historyEntities"]?.objectValue?.keys.sorted() == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
        #expect(layout["entityNumbers"]?.objectValue?["CHANGE"] == nil, "history is numbered apart from the model's entities")
    }

    /// A store made here, with history as Core Data writes it and `Z_MAX` above the highest key
    /// left (history pruned): runs without any fixture.
    @Test func madeStoreKeepsItsHistory() throws {
        let folder = TemporaryDirectory()
        let (store, model) = try Self.storeWithHistory(entity: "Note", in: folder)
        let plain = folder.url("plain.sqlite").path
        let back = folder.url("back.sqlite").path
        try LayoutConversion.convert(store, to: .plain, output: plain)
        let plainTables = try StoreDatabase.openReadOnly(plain).read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT m.name || ' ' || (SELECT count(*) FROM pragma_index_list(m.name)) FROM sqlite_master AS m WHERE m.type = 'table' AND m.name LIKE 'A%' ORDER BY m.name"
            )
        }
        #expect(
            plainTables == ["ACHANGE 1", "ATRANSACTION 1", "ATRANSACTIONSTRING 1"], "the plain store keeps the tables and their indexes")
        try LayoutConversion.convert(plain, to: .coreData, output: back, model: model)
        let differences = try CoreDataRoundTripTests.differences(apple: store, ours: back)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        #expect(
            try Self.historyKeys(back) == [
                HistoryKey(number: 16001, name: "CHANGE", max: 9), HistoryKey(number: 16002, name: "TRANSACTION", max: 4),
                HistoryKey(number: 16003, name: "TRANSACTIONSTRING", max: 2),
            ])
        let changes = try StoreDatabase.openReadOnly(back).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK").map {
                [$0[0], $0[1], $0[2], $0[3]] as [DatabaseValue]
            }
        }
        #expect(
            changes == [
                [7.databaseValue, 1.databaseValue, 2.databaseValue, Data([1, 2]).databaseValue],
                [8.databaseValue, 1.databaseValue, 3.databaseValue, DatabaseValue.null],
            ])
    }

    /// An entity whose plain table has the name of a history table (case aside) is refused, naming
    /// both and what to do; nothing is written.
    @Test func plainTableNamedAsHistoryIsRefused() throws {
        let folder = TemporaryDirectory()
        let (store, _) = try Self.storeWithHistory(entity: "Achange", in: folder)
        let plain = folder.url("plain.sqlite").path
        let error = #expect(throws: StoreError.self) { try LayoutConversion.convert(store, to: .plain, output: plain) }
        #expect(error?.message.contains("Achange") == true)
        #expect(error?.message.contains("persistent-history table ACHANGE (Z_PRIMARYKEY 16001 CHANGE)") == true)
        #expect(!FileManager.default.fileExists(atPath: plain))
    }

    struct HistoryKey: Equatable {
        var number: Int
        var name: String
        var max: Int
    }

    /// `Z_PRIMARYKEY`'s history rows (from 16001), `Z_MAX` included.
    static func historyKeys(_ path: String) throws -> [HistoryKey] {
        try StoreDatabase.openReadOnly(path).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT >= 16001 ORDER BY Z_ENT").map {
                HistoryKey(number: $0[0], name: $0[1], max: $0[2])
            }
        }
    }

    /// A store in Core Data's layout with three objects of `entity` and the history Core Data's
    /// framework 1344 writes with tracking on (its statements from CoreDataPlus's SampleModel2 stores).
    static func storeWithHistory(entity: String, in folder: TemporaryDirectory) throws -> (String, Model) {
        let model = try ModelLoader.load(
            json: Data(
                """
                {"name": "Notes", "versionIdentifiers": ["1"],
                 "entities": [{"name": "\(entity)", "attributes": [{"name": "title", "type": "String"}]}]}
                """.utf8), source: ModelSource(file: "notes.json"))
        let store = folder.url("Notes.sqlite")
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(url: store, storeLayout: .coreData))
        let context = ObjectContext(coordinator: coordinator)
        for title in ["a", "b", "c"] { try context.insert(entity: entity).setValue(.text(title), for: "title") }
        try context.save()
        try coordinator.stores.forEach { try $0.close() }
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
                    CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC);
                    CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
                    CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
                    CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
                    INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 9), (16002, 'TRANSACTION', 0, 4), (16003, 'TRANSACTIONSTRING', 0, 2);
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (3, 16002, 1, 2, 737057647.288022);
                    INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (7, 16001, 1, 1, 2, 3, x'0102'), (8, 16001, 0, 1, 3, 3, NULL);
                    INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (1, 16003, 'com.apple.dt.xctest.tool'), (2, 16003, 'xctest');
                    PRAGMA journal_mode = DELETE;
                    """)
        }
        return (store.path, model)
    }
}
