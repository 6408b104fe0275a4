import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Fetching: every predicate form, sorting, limits, several stores")
struct FetchTests {
    static let forms: [(String, [String])] = [
        ("name == 'Apple'", ["A-1"]),
        ("name != 'Apple'", ["A-2", "B-1", "H-1", "S-1"]),
        ("price == nil", ["B-1"]),
        ("price != 1.25", ["A-1", "B-1", "H-1", "S-1"]),
        ("price < 1.25", ["A-1"]),
        ("price <= 1.25", ["A-1", "A-2"]),
        ("price > 12", ["S-1"]),
        ("price >= 12", ["H-1", "S-1"]),
        ("stock == 0", ["A-2"]),
        ("active == YES", ["A-1", "A-2", "B-1", "H-1", "S-1"]),
        ("active == NO", []),
        ("sku IN {'A-1', 'H-1', 'Z-0'}", ["A-1", "H-1"]),
        ("sku IN {}", []),
        ("price IN {0.5, nil}", ["A-1", "B-1"]),
        ("name IN[c] {'apple', 'HAMMER'}", ["A-1", "H-1"]),
        ("name BEGINSWITH 'Ap'", ["A-1", "A-2"]),
        ("name BEGINSWITH 'ap'", []),
        ("name BEGINSWITH[c] 'ap'", ["A-1", "A-2"]),
        ("name ENDSWITH 'er'", ["H-1"]),
        ("name ENDSWITH[c] 'ER'", ["H-1"]),
        ("name CONTAINS 'an'", ["B-1"]),
        ("name CONTAINS[c] 'A'", ["A-1", "A-2", "B-1", "H-1", "S-1"]),
        ("name == 'Saw'", []),
        ("name ==[d] 'Saw'", ["S-1"]),
        ("name BEGINSWITH[cd] 's'", ["S-1"]),
        ("name CONTAINS[cd] 'SAW'", ["S-1"]),
        ("name LIKE 'A*'", ["A-1", "A-2"]),
        ("name LIKE '?pple'", ["A-1"]),
        ("name LIKE[c] 'h*R'", ["H-1"]),
        ("name LIKE 'A'", []),
        ("price BETWEEN {1, 12}", ["A-2", "H-1"]),
        ("category.name == 'Tools'", ["H-1", "S-1"]),
        ("category.name BEGINSWITH 'F' AND price > 1", ["A-2"]),
        ("NOT (category.name == 'Tools')", ["A-1", "A-2", "B-1"]),
        ("NOT price > 1", ["A-1", "B-1"]),
        ("category == nil", []),
        ("category != nil AND stock > 2 OR name == 'Śaw'", ["A-1", "B-1", "S-1"]),
        ("(stock > 2 OR stock == 0) AND NOT sku == 'B-1'", ["A-1", "A-2"]),
        ("added > 1700100000", ["A-1", "B-1", "H-1"]),
        ("TRUEPREDICATE", ["A-1", "A-2", "B-1", "H-1", "S-1"]),
        ("FALSEPREDICATE", []),
        ("name == \"x' OR 1=1 --\"", []),
    ]

    @Test(arguments: [StoreType.sqlite, .inMemory], [StoreLayout.plain, .coreData])
    func aStoresRowsShareOneLayoutAndReadByName(type: StoreType, layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, catalog: type, notes: type, layout: layout)
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        let store = try #require(coordinator.stores.first { $0.entityNames.contains("Product") })
        let rows = try store.fetch(StoreFetch(entity: "Product", sortDescriptors: [FetchSortDescriptor("sku")]))
        #expect(rows.count == 5 && rows.allSatisfy { $0.layout === rows[0].layout }, "one layout for the rows of a fetch")
        #expect(rows[0]["sku"] == "A-1" && rows[0]["name"] == "Apple" && rows[0]["colour"] == nil)
        #expect(rows[0].values["sku"] == "A-1" && rows[0].values.count == rows[0].layout.names.count)
        #expect(rows[0].sortValues == ["A-1"])

        // A row made from a dictionary equals the fetched one: rows compare by name, not by layout.
        let copy = StoreRow(
            entity: rows[0].entity, key: rows[0].key, values: rows[0].values, version: rows[0].version, sortValues: rows[0].sortValues)
        #expect(copy == rows[0] && copy.hashValue == rows[0].hashValue)
        var changed = rows[0]
        changed["name"] = "Pear"
        changed["colour"] = "green"
        #expect(changed["name"] == "Pear" && changed["colour"] == "green" && rows[0]["name"] == "Apple", "a row is a value")
    }

    @Test(arguments: [StoreType.sqlite, .inMemory])
    func everyPredicateForm(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, catalog: type, notes: type))
        try populateShop(context)
        for (format, expected) in Self.forms {
            #expect(try context.strings("Product", format, key: "sku") == expected, "\(format)")
            #expect(
                try context.count(FetchRequest(entity: "Product", predicate: FetchPredicate(format))) == expected.count, "count \(format)")
        }
        let variables = try FetchPredicate("sku IN $SKUS AND price < $MAX").substituting([
            "SKUS": .list(["A-1", "A-2", "H-1"]), "MAX": .value(5),
        ])
        #expect(
            try context.fetch(FetchRequest(entity: "Product", predicate: variables, sortDescriptors: [FetchSortDescriptor("sku")])).map {
                try $0.string("sku")
            } == ["A-1", "A-2"])
    }

    @Test(arguments: StoreLayout.allCases)
    func keyPathErrorsNameTheEntity(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, layout: layout))
        try populateShop(context)
        let unknown = #expect(throws: FetchPredicateError.self) { try context.strings("Product", "colour == 'red'", key: "sku") }
        #expect(unknown?.message.contains("Product has no attribute or relationship named \"colour\"") == true)
        let toMany = #expect(throws: FetchPredicateError.self) {
            try context.strings("Product", "ANY category.name == 'Fruit'", key: "sku")
        }
        #expect(toMany?.message.contains("ANY needs a key path through a to-many relationship") == true)
        let unbound = #expect(throws: FetchPredicateError.self) { try context.strings("Product", "sku == $SKU", key: "sku") }
        #expect(unbound?.message.contains("$SKU has no value") == true)
        #expect(throws: ContextError.self) { try context.strings("Widget", key: "sku") }
    }

    @Test(arguments: StoreLayout.allCases)
    func sortingAndLimits(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, layout: layout))
        try populateShop(context)
        #expect(
            try context.strings("Product", key: "sku", sort: [FetchSortDescriptor("price", ascending: false)]) == [
                "S-1", "H-1", "A-2", "A-1", "B-1",
            ])
        #expect(
            try context.strings(
                "Product", key: "sku", sort: [FetchSortDescriptor("category.name", ascending: false), FetchSortDescriptor("stock")]) == [
                    "S-1", "H-1", "A-2", "B-1", "A-1",
                ])
        #expect(try context.strings("Product", key: "sku", sort: [FetchSortDescriptor("stock")], limit: 2, offset: 1) == ["S-1", "H-1"])
        #expect(try context.count(FetchRequest(entity: "Product", fetchLimit: 2, fetchOffset: 4)) == 1)
    }

    @Test(arguments: [StoreType.sqlite, .inMemory])
    func sortingAndLimitsAcrossTwoStores(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, catalog: type, notes: type)
        let catalog = coordinator.stores[0]
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        let archive = try coordinator.addStore(
            StoreDescription(type: type, url: type == .inMemory ? nil : directory.url("archive.sqlite"), configuration: "Archive"))
        let unassigned = try context.insert(entity: "Product")
        unassigned["sku"] = "O-1"
        let refused = try #require(throws: CoordinatorError.self) { try context.save() }
        #expect(refused.message.contains("assign(_:to:)"))
        context.rollback()

        let antiques = try context.insert(entity: "Category")
        antiques["name"] = "Antiques"
        try context.assign(antiques, to: archive)
        for (sku, price, stock) in [("O-1", 5.0, 1), ("O-2", 15.0, 4), ("O-3", 0.25, 0)] {
            let old = try context.insert(entity: "Product")
            old["sku"] = .text(sku)
            old["name"] = .text("Old \(sku)")
            old["price"] = .real(price)
            old["stock"] = .integer(Int64(stock))
            try old.setObject(antiques, forRelationship: "category")
            try context.assign(old, to: archive)
        }
        try context.save()
        #expect(try archive.count(StoreFetch(entity: "Product")) == 3)
        #expect(try catalog.count(StoreFetch(entity: "Product")) == 5)

        let byPrice = [FetchSortDescriptor("price")]
        #expect(try context.strings("Product", key: "sku", sort: byPrice) == ["B-1", "O-3", "A-1", "A-2", "O-1", "H-1", "O-2", "S-1"])
        #expect(try context.strings("Product", key: "sku", sort: byPrice, limit: 3, offset: 2) == ["A-1", "A-2", "O-1"])
        #expect(
            try context.strings("Product", "price > 1", key: "sku", sort: [FetchSortDescriptor("price", ascending: false)], limit: 4) == [
                "S-1", "O-2", "H-1", "O-1",
            ])
        #expect(
            try context.strings(
                "Product", key: "sku", sort: [FetchSortDescriptor("category.name"), FetchSortDescriptor("sku", ascending: false)]) == [
                    "O-3", "O-2", "O-1", "B-1", "A-2", "A-1", "S-1", "H-1",
                ])
        #expect(try context.count(FetchRequest(entity: "Product", fetchLimit: 5, fetchOffset: 4)) == 4)
        #expect(try context.count(FetchRequest(entity: "Product", predicate: FetchPredicate("stock == 0"))) == 2)
        // Negative limits and offsets mean none, as SQLite reads them, and never crash a merge.
        #expect(try context.fetch(FetchRequest(entity: "Product", fetchLimit: -1, fetchOffset: -3)).count == 8)
        #expect(try context.count(FetchRequest(entity: "Product", fetchLimit: -2, fetchOffset: 6)) == 2)

        let onlyArchive = FetchRequest(entity: "Product", sortDescriptors: byPrice, affectedStores: [archive])
        #expect(try context.fetch(onlyArchive).map { try $0.string("sku") } == ["O-3", "O-1", "O-2"])
        #expect(try context.fetch(onlyArchive).allSatisfy { $0.store === archive })
        #expect(try context.count(FetchRequest(entity: "Product", affectedStores: [catalog])) == 5)
        let notes = coordinator.stores.first { $0.storeDescription.configuration == "Notes" }!
        #expect(throws: CoordinatorError.self) { try context.fetch(FetchRequest(entity: "Product", affectedStores: [notes])) }
    }

    // Bugs a review found, each kept from coming back.
    @Test func sortingOnAKeyPathThePredicateJoins() throws {
        let (context, _, directory) = try populatedShop()
        defer { withExtendedLifetime(directory) {} }
        #expect(
            try context.strings(
                "Product", "category.name == 'Fruit'", key: "sku", sort: [FetchSortDescriptor("category.name"), FetchSortDescriptor("sku")])
                == ["A-1", "A-2", "B-1"])
    }

    @Test func hugeLimitAcrossStoresDoesNotOverflow() throws {
        let (context, coordinator, directory) = try populatedShop()
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "Archive"))
        #expect(try context.fetch(FetchRequest(entity: "Product", fetchLimit: Int.max, fetchOffset: 1)).count == 4)
        withExtendedLifetime(directory) {}
    }

    @Test func beginsWithOnANumberFindsNegativeValues() throws {
        let (context, _, directory) = try populatedShop()
        defer { withExtendedLifetime(directory) {} }
        let apple = try #require(try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first)
        apple["stock"] = -12
        try context.save()
        #expect(try context.strings("Product", "stock BEGINSWITH '-1'", key: "sku") == ["A-1"])
    }
}
