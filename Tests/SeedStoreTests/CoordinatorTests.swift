import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Store coordinator: several stores, one merged model")
struct CoordinatorTests {
    @Test(arguments: [StoreType.sqlite, .inMemory, .binary, .xml])
    func savesAreRoutedByConfiguration(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, catalog: type, notes: type)
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        let catalog = try #require(coordinator.stores.first { $0.storeDescription.configuration == "Catalog" })
        let notes = try #require(coordinator.stores.first { $0.storeDescription.configuration == "Notes" })
        #expect(catalog.entityNames == ["Category", "Product", "Tag"])
        if type != .inMemory {
            #expect(coordinator.store(for: directory.url("catalog.\(type.rawValue)")) === catalog)
            #expect(coordinator.store(for: directory.url("./notes.\(type.rawValue)")) === notes)
        }
        #expect(coordinator.store(for: directory.url("elsewhere.sqlite")) == nil)
        #expect(try catalog.count(StoreFetch(entity: "Product")) == 5)
        #expect(try notes.count(StoreFetch(entity: "Note")) == 3)
        #expect(throws: StoreError.self) { try notes.count(StoreFetch(entity: "Product")) }
        let product = try #require(try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first)
        #expect(product.store === catalog)
        #expect(product.objectID.storeIdentifier == catalog.identifier)
        #expect(try product.object(forRelationship: "category")?.string("name") == "Fruit")
        #expect(try product.objects(forRelationship: "tags").map { try $0.string("label") } == ["sale"])
        #expect(try product.fetchedObjects("notes").compactMap { try $0.string("text") }.sorted() == ["crisp", "sour"])

        // A second coordinator reads what the first saved.
        if type != .inMemory {
            try coordinator.stores.forEach { try coordinator.removeStore($0) }
            let reopened = try shopCoordinator(directory, catalog: type, notes: type)
            let again = ObjectContext(coordinator: reopened)
            #expect(try again.strings("Product", key: "sku") == ["A-1", "A-2", "B-1", "H-1", "S-1"])
            let hammer = try #require(try again.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'H-1'"))).first)
            #expect(try hammer.objects(forRelationship: "tags").compactMap { try $0.string("label") }.sorted() == ["new", "sale"])
            #expect(try hammer.fetchedObjects("notes").map { try $0.integer("stars") } == [4])
        }
    }
}
