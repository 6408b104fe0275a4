import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// Bugs a review found, each kept from coming back.
@Suite("Review regressions")
struct ReviewRegressionTests {
    private func shop() throws -> (ObjectContext, StoreCoordinator, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory)
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        return (context, coordinator, directory)
    }

    @Test func deletingANewObjectUnlinksIt() throws {
        let (context, coordinator, directory) = try shop()
        defer { withExtendedLifetime(directory) {} }
        let product = try context.insert(entity: "Product")
        product["sku"] = "N-1"
        let category = try context.insert(entity: "Category")
        category["name"] = "Gone"
        try product.setObject(category, forRelationship: "category")
        context.delete(category)
        try context.save()
        let saved = try #require(try ObjectContext(coordinator: coordinator).fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'N-1'"))).first)
        #expect(try saved.object(forRelationship: "category") == nil, "not linked to whichever stored row had the temporary key")
    }

    @Test func relationshipOnlyChangesAreVersionChecked() throws {
        let (_, coordinator, directory) = try shop()
        defer { withExtendedLifetime(directory) {} }
        let first = ObjectContext(coordinator: coordinator)
        let second = ObjectContext(coordinator: coordinator)
        let request = FetchRequest(entity: "Product", predicate: try FetchPredicate("sku == 'A-1'"))
        let mine = try #require(try first.fetch(request).first)
        let theirs = try #require(try second.fetch(request).first)
        try mine.setObject(nil, forRelationship: "category")
        try first.save()
        try theirs.setObject(nil, forRelationship: "category")
        let error = try #require(throws: ContextError.self) { try second.save() }
        #expect(error.kind == .mergeConflict)
    }

    @Test func sortingOnAKeyPathThePredicateJoins() throws {
        let (context, _, directory) = try shop()
        defer { withExtendedLifetime(directory) {} }
        #expect(try context.strings("Product", "category.name == 'Fruit'", key: "sku", sort: [FetchSortDescriptor("category.name"), FetchSortDescriptor("sku")]) == ["A-1", "A-2", "B-1"])
    }

    @Test func hugeLimitAcrossStoresDoesNotOverflow() throws {
        let (context, coordinator, directory) = try shop()
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "Archive"))
        #expect(try context.fetch(FetchRequest(entity: "Product", fetchLimit: Int.max, fetchOffset: 1)).count == 4)
        withExtendedLifetime(directory) {}
    }

    @Test func nestedListsAreDepthLimited() {
        let error = #expect(throws: FetchPredicateError.self) { try FetchPredicate("a IN " + String(repeating: "{", count: 100_000)) }
        #expect(error?.message.contains("nests deeper") == true)
    }

    @Test func beginsWithOnANumberFindsNegativeValues() throws {
        let (context, _, directory) = try shop()
        defer { withExtendedLifetime(directory) {} }
        let apple = try #require(try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first)
        apple["stock"] = -12
        try context.save()
        #expect(try context.strings("Product", "stock BEGINSWITH '-1'", key: "sku") == ["A-1"])
    }
}
