import Foundation
import SeedModel
import SeedStore
import Testing

/// Every attribute value type set by name through `StoreValue(…)` reads back through a typed
/// record as the record put it, in both store layouts: the two APIs agree on what is stored.
@Suite("Values set by name, as a consumer package sets them")
struct StoreValueByNameTests {
    struct Sample: Codable, Equatable, EntityRecord {
        static let entityName = "Sample"
        var id: UUID
        var price: Decimal
        var photo: Data
        var active: Bool
        var ratio: Double
        var link: URL
        var when: Date
        var count: Int64
        var name: String
    }

    static let modelJSON = """
        {"name": "Values", "versionIdentifiers": ["1"], "entities": [{"name": "Sample", "attributes": [
          {"name": "id", "type": "UUID"}, {"name": "price", "type": "Decimal"}, {"name": "photo", "type": "Binary"},
          {"name": "active", "type": "Boolean"}, {"name": "ratio", "type": "Double"}, {"name": "link", "type": "URI"},
          {"name": "when", "type": "Date"}, {"name": "count", "type": "Integer 64"}, {"name": "name", "type": "String"}]}]}
        """

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("values-\(UUID().uuidString)")

    /// (A Decimal of more digits than a Double holds keeps them in the plain layout only: Core Data's
    /// layout stores a Decimal in a REAL column, as Core Data does.)
    @Test(arguments: [StoreLayout.coreData, .plain])
    func setByNameReadsAsTheTypedAPIWrites(_ layout: StoreLayout) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try ModelLoader.load(json: Data(Self.modelJSON.utf8), source: ModelSource(file: "Values.json"))
        let sample = Sample(
            id: UUID(), price: Decimal(string: "1234.125")!, photo: Data([0, 1, 2, 255]), active: true, ratio: 0.1,
            link: URL(string: "https://example.com/a?b=c")!, when: Date(timeIntervalSince1970: 1_700_000_000.25), count: Int64.max,
            name: "Ångström")

        let url = folder.appendingPathComponent("values.sqlite")
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(url: url, storeLayout: layout))
        let context = ObjectContext(coordinator: coordinator)
        let byName = try context.insert(entity: "Sample")
        byName["id"] = StoreValue(sample.id)
        byName["price"] = StoreValue(sample.price)
        byName["photo"] = StoreValue(sample.photo)
        byName["active"] = StoreValue(sample.active)
        byName["ratio"] = StoreValue(sample.ratio)
        byName["link"] = StoreValue(sample.link)
        byName["when"] = StoreValue(sample.when)
        byName["count"] = StoreValue(sample.count)
        byName["name"] = StoreValue(sample.name)
        let typed = try context.insert(sample)
        for attribute in ["id", "price", "photo", "active", "ratio", "link", "when", "count", "name"] {
            #expect(byName[attribute] == typed[attribute], "\(attribute): \(byName[attribute]) by name, \(typed[attribute]) typed")
        }
        try context.save()

        // Read back from the file by a new coordinator: both objects decode to the record.
        let reader = StoreCoordinator(model: model)
        try reader.addStore(StoreDescription(url: url, storeLayout: layout))
        let records = try ObjectContext(coordinator: reader).fetch(Sample.self)
        #expect(records == [sample, sample])
    }
}
