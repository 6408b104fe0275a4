import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Object context: saving, validation, merge policies")
struct ContextSaveTests {
    private func product(_ context: ObjectContext, _ sku: String) throws -> ManagedObject {
        let request = FetchRequest(
            entity: "Product", predicate: try FetchPredicate("sku == $SKU").substituting(["SKU": .value(.text(sku))]))
        return try #require(try context.fetch(request).first)
    }

    @Test(arguments: [StoreType.sqlite, .inMemory], StoreLayout.allCases)
    func validationListsEveryProblemAndWritesNothing(type: StoreType, layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, catalog: type, notes: type, layout: layout)
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        let bad = try context.insert(entity: "Product")
        #expect(try bad.integer("stock") == 0 && bad.bool("active") == true, "defaults are set on insert")
        bad["price"] = -1
        bad["stock"] = 40_000
        bad["colour"] = "red"
        let duplicate = try context.insert(entity: "Product")
        duplicate["sku"] = "A-1"
        duplicate["added"] = "yesterday"
        let note = try context.insert(entity: "Note")
        note["productSKU"] = "A-1"
        note["stars"] = 9
        let twin1 = try context.insert(entity: "Category")
        twin1["name"] = "Garden"
        let twin2 = try context.insert(entity: "Category")
        twin2["name"] = "Garden"
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.kind == .validation)
        let expected = [
            "Product.sku is required (non-optional String)",
            "Product.price is -1, below its minimum 0",
            "40000 does not fit Integer 16",
            "Product has no attribute \"colour\"",
            "Product must be unique on sku, and Product 1 in",
            "Product.added must be a Date value, not yesterday",
            "Note.text is required",
            "Note.stars is 9, above its maximum 5",
            "Category must be unique on name, and Category (new, unsaved",
        ]
        for part in expected {
            #expect(error.problems.contains { $0.contains(part) }, "\(part) in:\n\(error)")
        }
        #expect(error.problems.count == 9)
        #expect(context.hasChanges, "a failed save keeps the changes")
        let fresh = ObjectContext(coordinator: coordinator)
        #expect(try fresh.count(FetchRequest(entity: "Product")) == 5)
        #expect(try fresh.count(FetchRequest(entity: "Note")) == 3)
        #expect(try fresh.count(FetchRequest(entity: "Category")) == 2)

        context.rollback()
        #expect(!context.hasChanges)
        try context.save()
    }

    @Test(arguments: StoreLayout.allCases)
    func updatesDeletesAndRelationships(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, layout: layout)
        let context = ObjectContext(coordinator: coordinator)
        let objects = try populateShop(context)
        let apple = objects["A-1"]!
        #expect(apple.objectID.isTemporary == false)
        apple["price"] = 0.6
        #expect(apple.hasChanges && apple.changedValues == ["price": 0.6])
        let tools = try #require(try objects["H-1"]!.object(forRelationship: "category"))
        try apple.setObject(tools, forRelationship: "category")
        try apple.removeObject(try #require(try apple.objects(forRelationship: "tags").first), fromRelationship: "tags")
        try context.save()

        let other = ObjectContext(coordinator: coordinator)
        let reread = try product(other, "A-1")
        #expect(try reread.double("price") == 0.6)
        #expect(try reread.object(forRelationship: "category")?.string("name") == "Tools")
        #expect(try reread.objects(forRelationship: "tags").isEmpty)
        let toolsAgain = try #require(try reread.object(forRelationship: "category"))
        #expect(try toolsAgain.objects(forRelationship: "products").compactMap { try $0.string("sku") }.sorted() == ["A-1", "H-1", "S-1"])

        // Cascade: deleting a category deletes its products; nullify: their tags stay.
        other.delete(toolsAgain)
        try other.save()
        #expect(try ObjectContext(coordinator: coordinator).strings("Product", key: "sku") == ["A-2", "B-1"])
        #expect(try ObjectContext(coordinator: coordinator).count(FetchRequest(entity: "Tag")) == 2)
    }

    /// Two contexts read Apple; the first saves a price and stock change; the second then saves its own change.
    private func conflict(_ policy: MergePolicy, layout: StoreLayout) throws -> (
        first: ObjectContext, second: ObjectContext, stored: ManagedObject, coordinator: StoreCoordinator, directory: TemporaryDirectory
    ) {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, layout: layout)
        try populateShop(ObjectContext(coordinator: coordinator))
        let first = ObjectContext(coordinator: coordinator)
        let second = ObjectContext(coordinator: coordinator)
        second.mergePolicy = policy
        let mine = try product(first, "A-1")
        let theirs = try product(second, "A-1")
        mine["price"] = 0.7
        mine["stock"] = 11
        try first.save()
        theirs["price"] = 0.9
        theirs["name"] = "Green apple"
        return (first, second, theirs, coordinator, directory)
    }

    private func stored(_ coordinator: StoreCoordinator) throws -> (price: Double?, stock: Int64?, name: String?) {
        let apple = try product(ObjectContext(coordinator: coordinator), "A-1")
        return (try apple.double("price"), try apple.integer("stock"), try apple.string("name"))
    }

    @Test(arguments: StoreLayout.allCases)
    func mergePolicyErrorRefusesTheSave(_ layout: StoreLayout) throws {
        let setup = try conflict(.error, layout: layout)
        let error = try #require(throws: ContextError.self) { try setup.second.save() }
        #expect(error.kind == .mergeConflict)
        #expect(error.problems == ["Product 1: read at version 1, stored version is 2"])
        #expect(try stored(setup.coordinator) == (0.7, 11, "Apple"))
        #expect(setup.second.hasChanges)
    }

    @Test(arguments: StoreLayout.allCases)
    func mergePolicyStoreTrumps(_ layout: StoreLayout) throws {
        let setup = try conflict(.storeTrumps, layout: layout)
        try setup.second.save()
        #expect(try stored(setup.coordinator) == (0.7, 11, "Green apple"), "the stored price wins; the untouched name change is kept")
        #expect(try setup.stored.double("price") == 0.7)
    }

    @Test(arguments: StoreLayout.allCases)
    func mergePolicyObjectTrumps(_ layout: StoreLayout) throws {
        let setup = try conflict(.objectTrumps, layout: layout)
        try setup.second.save()
        #expect(try stored(setup.coordinator) == (0.9, 11, "Green apple"), "this context's changes win; the other's stock change stays")
    }

    @Test(arguments: StoreLayout.allCases)
    func mergePolicyOverwrite(_ layout: StoreLayout) throws {
        let setup = try conflict(.overwrite, layout: layout)
        try setup.second.save()
        #expect(
            try stored(setup.coordinator) == (0.9, 10, "Green apple"), "the whole object as this context saw it replaces the stored one")
    }

    @Test(arguments: StoreLayout.allCases)
    func mergePolicyRollback(_ layout: StoreLayout) throws {
        let setup = try conflict(.rollback, layout: layout)
        try setup.second.save()
        #expect(try stored(setup.coordinator) == (0.7, 11, "Apple"), "this context's changes are discarded")
        #expect(try setup.stored.double("price") == 0.7 && !setup.stored.hasChanges)
    }

    @Test(arguments: StoreLayout.allCases)
    func refreshAndFetchedPropertyCache(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory, layout: layout)
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        let apple = try product(context, "A-1")
        #expect(try apple.fetchedObjects("notes").count == 2)

        let writer = ObjectContext(coordinator: coordinator)
        let note = try writer.insert(entity: "Note")
        note["productSKU"] = "A-1"
        note["text"] = "new season"
        try writer.save()
        try product(writer, "A-1")["stock"] = 99
        try writer.save()

        #expect(try apple.fetchedObjects("notes").count == 2, "cached until refresh")
        apple["name"] = "Red apple"
        try context.refresh(apple, mergeChanges: true)
        #expect(try apple.fetchedObjects("notes").count == 3)
        #expect(try apple.integer("stock") == 99 && apple.string("name") == "Red apple")
        try context.refresh(apple, mergeChanges: false)
        #expect(try apple.string("name") == "Apple" && !apple.hasChanges)
        try context.save()
    }
}

@Suite("Object context: a save across stores is all or nothing")
struct CrossStoreAtomicityTests {
    @Test(arguments: [StoreType.sqlite, .binary])
    func failureInOneStoreLeavesEveryStoreUnchanged(catalogType: StoreType) throws {
        let directory = TemporaryDirectory()
        let catalogURL = directory.url("catalog.\(catalogType.rawValue)")
        let notesURL = directory.url("notes.sqlite")
        do {
            let coordinator = StoreCoordinator(model: try shopModel())
            try coordinator.addStore(StoreDescription(type: catalogType, url: catalogURL, configuration: "Catalog"))
            try coordinator.addStore(StoreDescription(type: .sqlite, url: notesURL, configuration: "Notes"))
            try populateShop(ObjectContext(coordinator: coordinator))
        }
        // A failure validation cannot foresee: the notes store refuses every new note.
        let queue = try DatabaseQueue(path: notesURL.path)
        try queue.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse_notes BEFORE INSERT ON Note BEGIN SELECT RAISE(ABORT, 'notes are closed'); END")
        }
        try queue.close()
        let catalogBefore = try Data(contentsOf: catalogURL)

        let coordinator = StoreCoordinator(model: try shopModel())
        try coordinator.addStore(StoreDescription(type: catalogType, url: catalogURL, configuration: "Catalog"))
        try coordinator.addStore(StoreDescription(type: .sqlite, url: notesURL, configuration: "Notes"))
        let context = ObjectContext(coordinator: coordinator)
        let product = try context.insert(entity: "Product")
        product["sku"] = "N-1"
        let apple = try #require(try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first)
        apple["price"] = 9.99
        let note = try context.insert(entity: "Note")
        note["productSKU"] = "N-1"
        note["text"] = "first"
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.description.contains("notes are closed"))

        #expect(try Data(contentsOf: catalogURL) == catalogBefore, "the catalog's file is unchanged")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(!files.contains { $0.contains(".tmp-") }, "no temporary file is left: \(files)")
        let fresh = ObjectContext(coordinator: coordinator)
        #expect(try fresh.count(FetchRequest(entity: "Product")) == 5)
        #expect(try fresh.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first?.double("price") == 0.5)
        #expect(context.hasChanges, "the failed save keeps the context's changes")
        #expect(product.objectID.isTemporary)
    }

    // Bugs a review found, each kept from coming back.
    @Test func deletingANewObjectUnlinksIt() throws {
        let (context, coordinator, directory) = try populatedShop()
        defer { withExtendedLifetime(directory) {} }
        let product = try context.insert(entity: "Product")
        product["sku"] = "N-1"
        let category = try context.insert(entity: "Category")
        category["name"] = "Gone"
        try product.setObject(category, forRelationship: "category")
        context.delete(category)
        try context.save()
        let saved = try #require(
            try ObjectContext(coordinator: coordinator).fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'N-1'")))
                .first)
        #expect(try saved.object(forRelationship: "category") == nil, "not linked to whichever stored row had the temporary key")
    }

    @Test func relationshipOnlyChangesAreVersionChecked() throws {
        let (_, coordinator, directory) = try populatedShop()
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
}
