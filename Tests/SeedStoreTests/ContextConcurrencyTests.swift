import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// The shop's product with this SKU.
private func shopProduct(_ context: ObjectContext, _ sku: String) throws -> ManagedObject {
    try #require(try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == %@", sku))).first)
}

@Suite("Object contexts on queues: perform, parent and child, merging saves", .timeLimit(.minutes(1)))
struct ContextConcurrencyTests {
    private let directory = TemporaryDirectory()

    /// A shop with its products saved, and a fresh coordinator-level context for reading the stores.
    private func shop() throws -> StoreCoordinator {
        let coordinator = try shopCoordinator(directory)
        try populateShop(ObjectContext(coordinator: coordinator))
        return coordinator
    }

    private func storedPrice(_ coordinator: StoreCoordinator, _ sku: String = "A-1") throws -> Double? {
        try shopProduct(ObjectContext(coordinator: coordinator), sku).double("price")
    }

    @Test func oneCoordinatorServesEightTasksSavingAtOnce() async throws {
        let coordinator = try shop()
        try await withThrowingTaskGroup(of: [ObjectID].self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let context = ObjectContext(coordinator: coordinator)
                    return try await context.perform {
                        var ids: [ObjectID] = []
                        for round in 0..<5 {
                            let notes = try (0..<3).map { index in
                                let note = try context.insert(entity: "Note")
                                note["productSKU"] = "A-1"
                                note["text"] = .text("writer \(writer) round \(round) note \(index)")
                                return note
                            }
                            try context.save()
                            ids += notes.map(\.objectID)
                        }
                        return ids
                    }
                }
            }
            let ids = try await group.reduce(into: [ObjectID]()) { $0 += $1 }
            #expect(Set(ids).count == 120 && ids.allSatisfy { !$0.isTemporary }, "every save's objects got permanent IDs")
        }
        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.count(FetchRequest(entity: "Note", predicate: FetchPredicate("text BEGINSWITH 'writer'"))) == 120)
    }

    @Test func performRunsBlocksInOrderOnTheContextsQueueAndPerformAndWaitNests() async throws {
        let context = ObjectContext(coordinator: try shop())
        let order = Locked([Int]())
        // In an async function `perform` means the awaited one; the fire-and-forget one is called from synchronous code.
        func enqueue(_ index: Int) { context.perform { order.withLock { $0.append(index) } } }
        for index in 0..<50 { enqueue(index) }
        let skus = try await context.perform {
            try context.fetch(FetchRequest(entity: "Product", sortDescriptors: [FetchSortDescriptor("sku")])).map {
                try $0.string("sku") ?? ""
            }
        }
        #expect(order.withLock { $0 } == Array(0..<50), "blocks run one after another, in the order given, before the awaited one")
        #expect(skus == ["A-1", "A-2", "B-1", "H-1", "S-1"])
        let nested = context.performAndWait { context.performAndWait { 42 } }
        #expect(nested == 42, "performAndWait inside the context's own queue runs at once instead of waiting for itself")
        let thrown = await #expect(throws: ContextError.self) { try await context.perform { _ = try context.insert(entity: "Nothing") } }
        #expect(thrown?.kind == .unknownName)
    }

    @Test func aChildSavesIntoItsParentAndTheParentsSaveWritesTheStores() throws {
        let coordinator = try shop()
        let parent = ObjectContext(coordinator: coordinator)
        let child = ObjectContext(parent: parent)
        try parent.performAndWait { try shopProduct(parent, "A-2")["name"] = "Dried apricot" }

        try child.performAndWait {
            #expect(try shopProduct(child, "A-2").string("name") == "Dried apricot", "a child reads through its parent's unsaved changes")
            let apple = try shopProduct(child, "A-1")
            apple["price"] = 0.65
            let hammer = try shopProduct(child, "H-1")
            child.delete(try shopProduct(child, "S-1"))
            let nails = try child.insert(entity: "Product")
            nails["sku"] = "N-1"
            try nails.setObject(try hammer.object(forRelationship: "category"), forRelationship: "category")
            try child.save()
            #expect(try !child.hasChanges && nails.integer("stock") == 0)
        }
        #expect(try storedPrice(coordinator) == 0.5, "a child's save leaves the stores alone")
        let pushed = try parent.performAndWait { () -> Bool in
            try parent.hasChanges && shopProduct(parent, "A-1").double("price") == 0.65
        }
        #expect(pushed, "the child's changes are the parent's unsaved changes")

        try parent.performAndWait { try parent.save() }
        #expect(try storedPrice(coordinator) == 0.65)
        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.strings("Product", key: "sku") == ["A-1", "A-2", "B-1", "H-1", "N-1"])
        #expect(try shopProduct(reader, "N-1").object(forRelationship: "category")?.string("name") == "Tools")
        #expect(try shopProduct(reader, "A-2").string("name") == "Dried apricot")
    }

    @Test func aChildsValidationProblemsAreReportedAtItsOwnSave() throws {
        let parent = ObjectContext(coordinator: try shop())
        let child = ObjectContext(parent: parent)
        _ = try child.insert(entity: "Product")
        let error = try #require(throws: ContextError.self) { try child.save() }
        #expect(error.kind == .validation && error.problems.contains { $0.contains("Product.sku is required") })
        #expect(!parent.hasChanges)
    }

    @Test func savedChangesMergeOnDemandThroughTheNotification() throws {
        let coordinator = try shop()
        let writer = ObjectContext(coordinator: coordinator)
        let reader = ObjectContext(coordinator: coordinator)
        let apple = try shopProduct(reader, "A-1")
        let banana = try shopProduct(reader, "B-1")
        let received = Locked<[SavedChanges]>([])
        let observer = NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: writer, queue: nil) {
            note in
            guard let changes = note.userInfo?[ObjectContext.savedChangesKey] as? SavedChanges else { return }
            received.withLock { $0.append(changes) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        try shopProduct(writer, "A-1")["price"] = 0.45
        writer.delete(try shopProduct(writer, "B-1"))
        try writer.save()
        let changes = try #require(received.withLock { $0.first })
        #expect(changes.updated == [apple.objectID] && changes.deleted.count == 1)
        #expect(try apple.double("price") == 0.5 && !banana.isDeleted, "nothing changes before merging")

        try reader.mergeChanges(from: changes)
        #expect(try apple.double("price") == 0.45)
        #expect(try banana.isDeleted && !reader.strings("Product", key: "sku").contains("B-1"))
        try reader.save()
    }

    @Test func contextsThatMergeAutomaticallyReceiveSiblingsSavesOnTheirQueue() async throws {
        let coordinator = try shop()
        let main = ObjectContext(coordinator: coordinator, concurrencyType: .mainQueue)
        main.automaticallyMergesChangesFromParent = true
        let untouched = ObjectContext(coordinator: coordinator)
        let apple = try await main.perform { try shopProduct(main, "A-1").objectID }
        try await untouched.perform { _ = try shopProduct(untouched, "A-1") }

        let background = ObjectContext(coordinator: coordinator)
        try await background.perform {
            try shopProduct(background, "A-1")["price"] = 0.55
            try background.save()
        }
        // Merges are queued behind the save, so a block queued after it sees them.
        let merged = try await main.perform { try main.object(with: apple).double("price") }
        #expect(merged == 0.55)
        let stale = try await untouched.perform { try untouched.object(with: apple).double("price") }
        #expect(stale == 0.5, "a context that does not merge automatically keeps what it read")
    }

    @Test(arguments: [(MergePolicy.storeTrumps, 0.55, "Green apple"), (.objectTrumps, 0.9, "Green apple"), (.rollback, 0.55, "Apple")])
    func mergedChangesMeetUnsavedOnesUnderTheMergePolicy(policy: MergePolicy, price: Double, name: String) throws {
        let coordinator = try shop()
        let context = ObjectContext(coordinator: coordinator)
        context.mergePolicy = policy
        let apple = try shopProduct(context, "A-1")
        apple["price"] = 0.9
        apple["name"] = "Green apple"

        let other = ObjectContext(coordinator: coordinator)
        let theirs = try shopProduct(other, "A-1")
        theirs["price"] = 0.55
        theirs["stock"] = 7
        let changes = Locked<SavedChanges?>(nil)
        let observer = NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: other, queue: nil) {
            note in
            changes.withLock { $0 = note.userInfo?[ObjectContext.savedChangesKey] as? SavedChanges }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try other.save()

        try context.mergeChanges(from: try #require(changes.withLock { $0 }))
        #expect(try apple.double("price") == price && apple.string("name") == name && apple.integer("stock") == 7)
        try context.save()
        let stored = try shopProduct(ObjectContext(coordinator: coordinator), "A-1")
        #expect(try stored.double("price") == price && stored.string("name") == name && stored.integer("stock") == 7)
    }

    @Test func underTheErrorPolicyAMergeLeavesTheConflictForTheSaveToReport() throws {
        let coordinator = try shop()
        let context = ObjectContext(coordinator: coordinator)
        context.automaticallyMergesChangesFromParent = true
        try shopProduct(context, "A-1")["price"] = 0.9
        let other = ObjectContext(coordinator: coordinator)
        try shopProduct(other, "A-1")["price"] = 0.55
        try other.save()
        context.performAndWait {}
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.kind == .mergeConflict)
        #expect(try storedPrice(coordinator) == 0.55)
    }

    @Test func aChildThatMergesFollowsItsObjectsToTheirPermanentIDs() throws {
        let coordinator = try shop()
        let parent = ObjectContext(coordinator: coordinator)
        let child = ObjectContext(parent: parent)
        child.automaticallyMergesChangesFromParent = true
        let tag = try child.performAndWait {
            let tag = try child.insert(entity: "Tag")
            tag["label"] = "organic"
            try child.save()
            return tag
        }
        #expect(tag.objectID.isTemporary, "until the parent saves, the object has the parent's temporary ID")
        try parent.performAndWait { try parent.save() }
        child.performAndWait {}
        #expect(!tag.objectID.isTemporary)
        try child.performAndWait {
            tag["label"] = "bio"
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        #expect(try ObjectContext(coordinator: coordinator).strings("Tag", key: "label") == ["bio", "new", "sale"])
    }
}
