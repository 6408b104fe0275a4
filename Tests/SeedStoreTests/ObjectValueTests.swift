import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Managed objects: values by name")
struct ObjectValueTests {
    @Test func aNameTheEntityDoesNotHaveIsAnErrorNamingTheEntityAndItsAttributes() throws {
        let context = ObjectContext(coordinator: try shopCoordinator(TemporaryDirectory(), catalog: .inMemory, notes: .inMemory))
        let objects = try populateShop(context)
        let apple = try #require(try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first)
        #expect(try apple.value(for: "sku") == .text("A-1"))
        #expect(try objects["B-1"]!.value(for: "price") == .null, "an attribute without a value is null, not an error")

        let misspelt = try #require(throws: ContextError.self) { try apple.value(for: "prise") }
        #expect(misspelt.kind == .unknownName)
        #expect(misspelt.message == "Product has no attribute \"prise\"; its attributes are active, added, name, price, sku, stock")
        let relationship = try #require(throws: ContextError.self) { try apple.value(for: "category") }
        #expect(
            relationship.message.contains("Product.category is a to-one relationship")
                && relationship.message.contains("object(forRelationship:)"))
        let fetched = try #require(throws: ContextError.self) { try apple.value(for: "notes") }
        #expect(fetched.message.contains("fetchedObjects(_:)"))

        // The subscript stays unchecked, as its documentation says; the typed getters check.
        #expect(apple["prise"] == .null)
        let typed = try #require(throws: ContextError.self) { try apple.string("prise") }
        #expect(typed.message == misspelt.message)
        #expect(throws: ContextError.self) { try apple.date("addde") }
        #expect(try apple.string("sku") == "A-1" && apple.double("price") == 0.5 && apple.bool("active") == true)
    }

    @Test func setValueChecksTheNameAtOnce() throws {
        let context = ObjectContext(coordinator: try shopCoordinator(TemporaryDirectory(), catalog: .inMemory, notes: .inMemory))
        let note = try context.insert(entity: "Note")
        try note.setValue("A-1", for: "productSKU")
        try note.setValue("kept", for: "text")
        let error = try #require(throws: ContextError.self) { try note.setValue(5, for: "stras") }
        #expect(error.message == "Note has no attribute \"stras\"; its attributes are productSKU, stars, text")
        #expect(!note.changedValues.keys.contains("stras"))
        try context.save()
        #expect(try note.value(for: "text") == .text("kept"))
    }
}
