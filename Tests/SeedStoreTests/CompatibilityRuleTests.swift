import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Core Data's compatibility rule in the coordinator")
struct CompatibilityRuleTests {
    private let directory = TemporaryDirectory()

    /// A catalog store written by a coordinator over the whole shop model, then closed.
    private func catalogStore() throws -> URL {
        let url = directory.url("catalog.\(StoreType.sqlite.rawValue)")
        let coordinator = try shopCoordinator(directory)
        try populateShop(ObjectContext(coordinator: coordinator))
        for store in coordinator.stores { try coordinator.removeStore(store) }
        return url
    }

    @Test func everyEntityOfTheCoordinatorsModelCounts() throws {
        let url = try catalogStore()
        // Same catalog entities, but a coordinator model with one more user entity: Core Data refuses it.
        var wider = try shopModel()
        wider.entities.append(Entity(name: "Basket", attributes: [Attribute(name: "label", type: .string)]))
        wider.configurations.append(Configuration(name: "Baskets", entities: ["Basket"]))
        let error = try #require(throws: CoordinatorError.self) {
            try StoreCoordinator(model: wider).addStore(
                StoreDescription(type: .sqlite, url: url, configuration: "Catalog", isReadOnly: true))
        }
        #expect(error.kind == .incompatibleStore)
        #expect(error.differingEntities == ["Basket"])
        #expect(error.message.contains("Basket (in the model but not in the store)"))

        // A changed property is named with what changed.
        var changed = try shopModel()
        let product = changed.entities.firstIndex { $0.name == "Product" }!
        let stock = changed.entities[product].attributes.firstIndex { $0.name == "stock" }!
        changed.entities[product].attributes[stock].type = .integer32
        let typeError = try #require(throws: CoordinatorError.self) {
            try StoreCoordinator(model: changed).addStore(
                StoreDescription(type: .sqlite, url: url, configuration: "Catalog", isReadOnly: true))
        }
        #expect(typeError.message.contains("Product (attribute stock changed: Integer 16 → Integer 32)"))
    }

    @Test func storeStampedForAWiderModelSaysWhichModelsToAdd() throws {
        let url = try catalogStore()
        // The shop model without its Notes configuration's entity: the store was stamped with Note's hash too.
        var narrower = try shopModel()
        narrower.entities.removeAll { $0.name == "Note" }
        narrower.configurations.removeAll { $0.name == "Notes" }
        let product = narrower.entities.firstIndex { $0.name == "Product" }!
        narrower.entities[product].fetchedProperties = []
        let error = try #require(throws: CoordinatorError.self) {
            try StoreCoordinator(model: narrower).addStore(
                StoreDescription(type: .sqlite, url: url, configuration: "Catalog", isReadOnly: true))
        }
        #expect(error.message.contains("Note (in the store but not in the model)"))
        #expect(error.message.contains("add the models that define them to this coordinator's model"))
    }

    @Test func storeOfTheFirstHashEncodingIsRehashedFromItsEmbeddedModel() throws {
        let url = try catalogStore()
        // Rewrite the stamp as seedbuild's first encoding wrote it: other hash bytes, the configuration's entities only.
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            var metadata = try StoreMetadata.read(from: db)
            metadata[StoreMetadata.Key.hashEncodingVersion] = .integer(1)
            metadata[StoreMetadata.Key.versionHashes] = .object(["Category": "00", "Product": "11", "Tag": "22"])
            try metadata.write(to: db)
        }
        try queue.close()
        let coordinator = StoreCoordinator(model: try shopModel())
        let store = try coordinator.addStore(StoreDescription(type: .sqlite, url: url, configuration: "Catalog", isReadOnly: true))
        #expect(try ObjectContext(coordinator: coordinator).count(FetchRequest(entity: "Product")) == 5)
        #expect(store.entityNames == ["Category", "Product", "Tag"])
    }
}
