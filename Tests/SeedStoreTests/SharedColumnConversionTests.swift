import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// A column of an inheritance tree's table keeps its value in every row through a conversion, in
/// both directions, whichever entity of the tree declares it: Core Data's migration fills a column
/// it adds with the default in every row of the tree (Wire's `ZMESSAGE.ZDECRYPTIONERRORCODE` is 0 in
/// the rows of every kind of message), and a conversion keeps whatever a column holds.
@Suite("Shared tree columns keep every row's value through a conversion")
struct SharedColumnConversionTests {
    private let directory = TemporaryDirectory()

    private static let modelJSON = """
        {"name": "Chat", "versionIdentifiers": ["1"],
         "entities": [
          {"name": "Message", "attributes": [{"name": "text", "type": "String"}]},
          {"name": "TextMessage", "parentEntity": "Message", "attributes": [{"name": "decryptionErrorCode", "type": "Integer 16"}]},
          {"name": "SystemMessage", "parentEntity": "Message", "attributes": [{"name": "systemType", "type": "Integer 16"}]}
         ]}
        """

    /// Two messages of each kind, each kind's own attribute set on one of them.
    private func makeStore(_ name: String, layout: StoreLayout) throws -> String {
        let model = try ModelLoader.load(json: Data(Self.modelJSON.utf8), source: ModelSource(file: "chat.json"))
        let url = directory.url(name)
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addStore(StoreDescription(url: url, sqliteJournalMode: .delete, storeLayout: layout))
        let context = ObjectContext(coordinator: coordinator)
        for (entity, text) in [("TextMessage", "hello"), ("SystemMessage", "joined"), ("TextMessage", "bye"), ("SystemMessage", "left")] {
            let message = try context.insert(entity: entity)
            message["text"] = .text(text)
        }
        try context.save()
        try coordinator.removeStore(store)
        return url.path
    }

    /// Every row of `table`, its columns in name order, with each value's type.
    private func rows(_ path: String, table: String) throws -> [String] {
        try StoreDatabase.openReadOnly(path).read { db in
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoteIdentifier(table)))").map { $0["name"] as String }.sorted()
            let values = columns.map { "'\($0)=' || typeof(\(quoteIdentifier($0))) || ':' || quote(\(quoteIdentifier($0)))" }
            return try String.fetchAll(
                db, sql: "SELECT \(values.joined(separator: " || ' ' || ")) FROM \(quoteIdentifier(table)) ORDER BY 1")
        }
    }

    private func update(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// Core Data's layout → plain → Core Data's: every row keeps both kinds' columns as Apple's migration filled them.
    @Test func fromCoreDatasLayoutAndBack() throws {
        let source = try makeStore("chat.sqlite", layout: .coreData)
        try update(source, "UPDATE ZMESSAGE SET ZDECRYPTIONERRORCODE = 0, ZSYSTEMTYPE = 0")
        let (plain, back) = (directory.path("plain.sqlite"), directory.path("back.sqlite"))
        try LayoutConversion.convert(source, to: .plain, output: plain)
        try LayoutConversion.convert(plain, to: .coreData, output: back)
        let original = try rows(source, table: "ZMESSAGE")
        #expect(
            original.count == 4
                && original.allSatisfy { $0.contains("ZDECRYPTIONERRORCODE=integer:0") && $0.contains("ZSYSTEMTYPE=integer:0") })
        #expect(try rows(back, table: "ZMESSAGE") == original)
        let differences = try CoreDataRoundTripTests.differences(apple: source, ours: back)
        #expect(differences.isEmpty, "\(differences)")
    }

    /// Plain → Core Data's layout → plain: a value in a sibling's row comes back too.
    @Test func fromThePlainLayoutAndBack() throws {
        let source = try makeStore("chat.sqlite", layout: .plain)
        try update(source, "UPDATE Message SET decryptionErrorCode = 7, systemType = 3")
        let (coreData, back) = (directory.path("coredata.sqlite"), directory.path("back.sqlite"))
        try LayoutConversion.convert(source, to: .coreData, output: coreData)
        let converted = try rows(coreData, table: "ZMESSAGE")
        #expect(
            converted.count == 4
                && converted.allSatisfy { $0.contains("ZDECRYPTIONERRORCODE=integer:7") && $0.contains("ZSYSTEMTYPE=integer:3") },
            "\(converted)")
        try LayoutConversion.convert(coreData, to: .plain, output: back)
        #expect(try rows(back, table: "Message") == rows(source, table: "Message"))
    }
}
