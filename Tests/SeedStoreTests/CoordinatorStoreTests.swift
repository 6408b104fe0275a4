import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Store coordinator: configurations, read-only stores, metadata, compatibility")
struct CoordinatorStoreTests {
    @Test func defaultConfigurationAllowsNoOtherStore() throws {
        let directory = TemporaryDirectory()
        let model = try shopModel()
        let whole = StoreCoordinator(model: model)
        let everything = try whole.addStore(StoreDescription(type: .inMemory))
        #expect(everything.entityNames == ["Category", "Note", "Product", "Tag"])
        let error = try #require(throws: CoordinatorError.self) {
            try whole.addStore(StoreDescription(type: .sqlite, url: directory.url("notes.sqlite"), configuration: "Notes"))
        }
        #expect(error.kind == .overlappingConfiguration)
        #expect(error.message.contains("Default configuration"))
        #expect(!FileManager.default.fileExists(atPath: directory.url("notes.sqlite").path), "a refused store is not created")

        let named = StoreCoordinator(model: model)
        try named.addStore(StoreDescription(type: .inMemory, configuration: "Catalog"))
        #expect(throws: CoordinatorError.self) { try named.addStore(StoreDescription(type: .inMemory)) }
        let twice = try #require(throws: CoordinatorError.self) {
            try named.addStore(StoreDescription(type: .inMemory, configuration: "Catalog"))
        }
        #expect(twice.message.contains("already added with it"))
        let unknown = try #require(throws: CoordinatorError.self) {
            try named.addStore(StoreDescription(type: .inMemory, configuration: "Orders"))
        }
        #expect(unknown.kind == .unknownConfiguration)
        #expect(unknown.message.contains("Archive, Catalog, Notes, Default"))
        #expect(named.stores.count == 1)
    }

    @Test func readOnlyStoreRefusesEveryWriteAndStaysUnchanged() throws {
        let directory = TemporaryDirectory()
        let catalogURL = directory.url("catalog.SQLite")
        do {
            let coordinator = try shopCoordinator(directory)
            try populateShop(ObjectContext(coordinator: coordinator))
        }
        let before = try Data(contentsOf: catalogURL)
        let coordinator = StoreCoordinator(model: try shopModel())
        let catalog = try coordinator.addStore(StoreDescription(type: .sqlite, url: catalogURL, configuration: "Catalog", isReadOnly: true))
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "Notes"))
        #expect(catalog.isReadOnly)
        let context = ObjectContext(coordinator: coordinator)

        let apple = try #require(try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first)
        apple["price"] = 0.75
        let update = try #require(throws: StoreError.self) { try context.save() }
        #expect(update.kind == .refused)
        #expect(
            update.description.contains("catalog.SQLite") && update.description.contains("Product")
                && update.description.contains("read-only"))
        context.rollback()

        let product = try context.insert(entity: "Product")
        product["sku"] = "Z-9"
        #expect(throws: StoreError.self) { try context.save() }
        context.rollback()

        context.delete(apple)
        let delete = try #require(throws: StoreError.self) { try context.save() }
        #expect(delete.description.contains("Product"))
        context.rollback()

        coordinator.setMetadata(StoreMetadata(values: ["note": "x"]), for: catalog)
        #expect(throws: StoreError.self) { try context.save() }
        context.rollback()

        // Notes still save beside the read-only catalog.
        let note = try context.insert(entity: "Note")
        note["productSKU"] = "A-1"
        note["text"] = "juicy"
        try context.save()
        #expect(try apple.fetchedObjects("notes").map { try $0.string("text") } == ["juicy"])
        #expect(try Data(contentsOf: catalogURL) == before, "the read-only store's file is byte for byte unchanged")
    }

    @Test(arguments: [StoreType.sqlite, .binary, .xml])
    func metadataWithAndWithoutCoordinator(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let url = directory.url("catalog.\(type.rawValue)")
        do {
            let coordinator = StoreCoordinator(model: try shopModel())
            let store = try coordinator.addStore(StoreDescription(type: type, url: url, configuration: "Catalog"))
            var metadata = coordinator.metadata(for: store)
            #expect(metadata.configuration == "Catalog")
            #expect(metadata[StoreMetadata.Key.storeType] == .string(type.rawValue))
            metadata["appVersion"] = "2.1"
            metadata[StoreMetadata.Key.storeUUID] = "not-allowed"
            coordinator.setMetadata(metadata, for: store)
            #expect(coordinator.metadata(for: store)["appVersion"] == "2.1", "pending metadata is visible before saving")
            #expect(try StoreMetadata.read(at: url)["appVersion"] == nil, "and written only on save")
            let context = ObjectContext(coordinator: coordinator)
            #expect(context.hasChanges)
            try context.save()
            #expect(store.metadata["appVersion"] == "2.1")
        }
        var read = try StoreMetadata.read(at: url)
        #expect(read["appVersion"] == "2.1")
        #expect(read.storeUUID != "not-allowed", "managed keys keep their values")
        #expect(
            read.versionHashes == (try shopModel().entityVersionHashes),
            "stamped with every entity of the coordinator's model, as Core Data does")

        read["appVersion"] = "2.2"
        read["lastSync"] = .integer(1_700_000_000)
        try StoreMetadata.write(read, at: url)
        let coordinator = StoreCoordinator(model: try shopModel())
        let store = try coordinator.addStore(StoreDescription(type: type, url: url, configuration: "Catalog"))
        #expect(coordinator.metadata(for: store)["appVersion"] == "2.2")
        #expect(coordinator.metadata(for: store)["lastSync"] == .integer(1_700_000_000))
    }

    @Test func incompatibleStoreIsRefusedOrMigrated() throws {
        let directory = TemporaryDirectory()
        let url = directory.url("catalog.sqlite")
        do {
            let coordinator = try shopCoordinator(directory)
            try populateShop(ObjectContext(coordinator: coordinator))
        }
        // Once closed: an open store's write-ahead log keeps its old name.
        try FileManager.default.moveItem(at: directory.url("catalog.SQLite"), to: url)
        let original = try Data(contentsOf: url)
        let newer = try shopModel(productExtras: #", {"name": "colour", "type": "String"}"#)

        let plain = StoreCoordinator(model: newer)
        let refused = try #require(throws: CoordinatorError.self) {
            try plain.addStore(StoreDescription(type: .sqlite, url: url, configuration: "Catalog"))
        }
        #expect(refused.kind == .incompatibleStore)
        #expect(refused.differingEntities == ["Product"])
        #expect(refused.message.contains("shouldMigrateStoreAutomatically"))

        // Read-only: migrated into the caches folder, never in place.
        let caches = directory.url("caches")
        let readOnly = StoreCoordinator(model: newer)
        let seed = try readOnly.addStore(
            StoreDescription(
                type: .sqlite, url: url, configuration: "Catalog", isReadOnly: true,
                shouldMigrateStoreAutomatically: true, shouldInferMappingAutomatically: true, migrationCachesDirectory: caches))
        #expect(try Data(contentsOf: url) == original)
        #expect(seed.storeDescription.url?.deletingLastPathComponent().lastPathComponent == "caches")
        #expect(seed.isReadOnly)
        let context = ObjectContext(coordinator: readOnly)
        #expect(try context.strings("Product", "colour == nil", key: "sku") == ["A-1", "A-2", "B-1", "H-1", "S-1"])
        #expect(try StoreMetadata.read(at: seed.storeDescription.url!)["migratedFrom"] != nil)

        // Without a caches folder a read-only store cannot be migrated.
        let noCaches = StoreCoordinator(model: newer)
        #expect(throws: CoordinatorError.self) {
            try noCaches.addStore(
                StoreDescription(
                    type: .sqlite, url: url, configuration: "Catalog", isReadOnly: true, shouldMigrateStoreAutomatically: true,
                    shouldInferMappingAutomatically: true))
        }

        // Writable: migrated in place and usable at once.
        let writable = StoreCoordinator(model: newer)
        try writable.addStore(
            StoreDescription(
                type: .sqlite, url: url, configuration: "Catalog", shouldMigrateStoreAutomatically: true,
                shouldInferMappingAutomatically: true))
        let editing = ObjectContext(coordinator: writable)
        let apple = try #require(try editing.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'A-1'"))).first)
        apple["colour"] = "red"
        try editing.save()
        #expect(try StoreMetadata.read(at: url).versionHashes == newer.entityVersionHashes)
    }

    @Test func crossStoreRelationshipIsRefusedOnSave() throws {
        let directory = TemporaryDirectory()
        var model = try shopModel()
        // Validation refuses such a model; build it by hand to check the runtime refuses it too.
        var note = try #require(model.entity(named: "Note"))
        note.relationships = [Relationship(name: "product", destination: "Product")]
        model.entities = model.entities.filter { $0.name != "Note" } + [note]
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.url("catalog.sqlite"), configuration: "Catalog"))
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.url("notes.sqlite"), configuration: "Notes"))
        let context = ObjectContext(coordinator: coordinator)
        let product = try context.insert(entity: "Product")
        product["sku"] = "A-1"
        try context.save()
        let remark = try context.insert(entity: "Note")
        remark["productSKU"] = "A-1"
        remark["text"] = "linked"
        try remark.setObject(product, forRelationship: "product")
        let error = try #require(throws: CoordinatorError.self) { try context.save() }
        #expect(error.kind == .crossStoreRelationship)
        for part in ["Note.product", "notes.sqlite", "catalog.sqlite", "fetched property"] {
            #expect(error.message.contains(part), "\(part) in: \(error.message)")
        }
        #expect(try ObjectContext(coordinator: coordinator).count(FetchRequest(entity: "Note")) == 0, "nothing was written")
    }
}

@Suite("Store coordinator: SQLite pragmas")
struct CoordinatorPragmaTests {
    @Test func pragmasApplyOnOpeningAndOnlyPlainValuesAreTaken() throws {
        let directory = TemporaryDirectory()
        let url = directory.url("notes.sqlite")
        do {
            let coordinator = StoreCoordinator(model: try shopModel())
            try coordinator.addStore(
                StoreDescription(type: .sqlite, url: url, configuration: "Notes", sqlitePragmas: ["journal_mode": "WAL"]))
            let context = ObjectContext(coordinator: coordinator)
            let note = try context.insert(entity: "Note")
            note["productSKU"] = "A-1"
            note["text"] = "written in WAL mode"
            try context.save()
        }
        // Bytes 18 and 19 of the SQLite header are 2 in WAL mode, 1 in rollback-journal mode.
        #expect(try Data(contentsOf: url)[18] == 2)

        let injected = try #require(throws: StoreError.self) {
            try StoreCoordinator(model: try shopModel()).addStore(
                StoreDescription(type: .inMemory, configuration: "Notes", sqlitePragmas: ["cache_size": "1; DROP TABLE Note"]))
        }
        #expect(injected.description.contains("cache_size"))
    }
}
