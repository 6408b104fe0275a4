import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// Every row of every entity a store holds, with the keys its relationships point at.
private func contents(of store: any PersistentStore, model: Model) throws -> [String] {
    var lines: [String] = []
    for entity in store.entityNames.sorted() {
        for row in try store.fetch(StoreFetch(entity: entity)) {
            var line = "\(entity) \(row.key.displayText) v\(row.version):"
            for (name, value) in row.values.sorted(by: { $0.key < $1.key }) { line += " \(name)=\(value.displayText)" }
            for relationship in model.entity(named: entity)!.relationships {
                let keys = try store.relatedKeys(entity: entity, key: row.key, relationship: relationship.name)
                line += " \(relationship.name)->[\(keys.map(\.displayText).joined(separator: ","))]"
            }
            lines.append(line)
        }
    }
    return lines
}

@Suite("Atomic stores and Save As")
struct StoreRelocationTests {
    @Test(arguments: [StoreType.binary, .xml])
    func atomicStoreSavedAndReopenedIsEqual(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let model = try shopModel()
        let url = directory.url("catalog.\(type.rawValue)")
        let saved: [String]
        do {
            let coordinator = StoreCoordinator(model: model)
            let store = try coordinator.addStore(StoreDescription(type: type, url: url, configuration: "Catalog"))
            try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "Notes"))
            let context = ObjectContext(coordinator: coordinator)
            let objects = try populateShop(context)
            objects["A-2"]!["price"] = 1.5
            try context.save()
            saved = try contents(of: store, model: model)
        }
        let head = try Data(contentsOf: url).prefix(6)
        #expect(type == .binary ? head == Data("bplist".utf8) : head.starts(with: Data("<?xml".utf8)))
        let coordinator = StoreCoordinator(model: model)
        let reopened = try coordinator.addStore(StoreDescription(type: type, url: url, configuration: "Catalog"))
        #expect(try contents(of: reopened, model: model) == saved)
        #expect(saved.count == 9)
        #expect(saved.contains { $0.hasPrefix("Product 2 v2:") && $0.contains("price=1.5") }, "versions survive: \(saved)")
    }

    @Test(arguments: StoreType.allCases, StoreType.allCases)
    func migrateStoreBetweenTypes(from source: StoreType, to destination: StoreType) throws {
        let directory = TemporaryDirectory()
        let model = try shopModel()
        let coordinator = StoreCoordinator(model: model)
        let sourceURL = source == .inMemory ? nil : directory.url("catalog.\(source.rawValue)")
        let old = try coordinator.addStore(StoreDescription(type: source, url: sourceURL, configuration: "Catalog"))
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "Notes"))
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        var metadata = coordinator.metadata(for: old)
        metadata["appVersion"] = "3"
        coordinator.setMetadata(metadata, for: old)
        try context.save()
        let before = try contents(of: old, model: model)
        let uuid = old.identifier
        // Not for SQLite: reading an open store's file through another descriptor drops the process's locks on it.
        let sourceBytes = source == .sqlite ? nil : try sourceURL.map { try Data(contentsOf: $0) }

        let targetURL = destination == .inMemory ? nil : directory.url("moved/catalog-copy.\(destination.rawValue)")
        let moved = try coordinator.migrateStore(old, to: targetURL, type: destination)
        #expect(coordinator.stores.contains { $0 === moved } && !coordinator.stores.contains { $0 === old })
        #expect(moved.storeDescription.type == destination)
        #expect(try contents(of: moved, model: model) == before)
        #expect(moved.metadata["appVersion"] == "3")
        #expect(moved.metadata[StoreMetadata.Key.storeType] == .string(destination.rawValue))
        #expect(moved.identifier == uuid, "the store UUID is kept")
        if let sourceURL, source == .sqlite {
            // A WAL-mode file's bytes change when its log is folded in on closing; its contents must not.
            let reader = StoreCoordinator(model: model)
            let original = try reader.addStore(StoreDescription(type: source, url: sourceURL, configuration: "Catalog", isReadOnly: true))
            let originalContents = try withExtendedLifetime(reader) { try contents(of: original, model: model) }
            #expect(originalContents == before, "the old file is untouched")
            #expect(original.metadata[StoreMetadata.Key.storeType] == .string(source.rawValue))
        } else if let sourceURL {
            #expect(try Data(contentsOf: sourceURL) == sourceBytes, "the old file is untouched")
        }
        if let targetURL {
            #expect(try StoreMetadata.read(at: targetURL)["appVersion"] == "3")
        }

        // The new store is live: a save goes to it.
        let fresh = ObjectContext(coordinator: coordinator)
        let product = try fresh.insert(entity: "Product")
        product["sku"] = "N-1"
        try fresh.save()
        #expect(try moved.count(StoreFetch(entity: "Product")) == 6)
    }

    @Test func migrateStoreRefusesToOverwrite() throws {
        let directory = TemporaryDirectory()
        let coordinator = try shopCoordinator(directory)
        let catalog = coordinator.stores[0]
        #expect(FileManager.default.createFile(atPath: directory.url("taken.sqlite").path, contents: Data("keep".utf8)))
        let error = try #require(throws: CoordinatorError.self) {
            try coordinator.migrateStore(catalog, to: directory.url("taken.sqlite"), type: .sqlite)
        }
        #expect(error.message.contains("already exists"))
        #expect(try Data(contentsOf: directory.url("taken.sqlite")) == Data("keep".utf8))
        #expect(coordinator.stores[0] === catalog)
    }
}

@Suite("Atomic stores: damaged files")
struct AtomicStoreDamageTests {
    @Test(arguments: [StoreType.binary, .xml])
    func damagedFileIsRefusedNamingIt(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let url = directory.url("catalog.\(type.rawValue)")
        _ = try StoreCoordinator(model: try shopModel()).addStore(StoreDescription(type: type, url: url, configuration: "Catalog"))
        let format: PropertyListSerialization.PropertyListFormat = type == .xml ? .xml : .binary
        let original = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        let metadata = try #require(original["metadata"] as? String)
        let damages: [[String: Any]] = [
            ["metadata": metadata, "tables": ["Product": ["not a row"]]], ["metadata": metadata, "tables": ["Widget": [[String: Any]]()]],
            ["metadata": metadata, "tables": ["Product": [["colour": "red"]]]], ["metadata": "{}", "tables": [String: Any]()],
            ["metadata": "[1]", "tables": [String: Any]()], ["tables": [String: Any]()],
        ]
        for damaged in damages {
            try PropertyListSerialization.data(fromPropertyList: damaged, format: format, options: 0).write(to: url)
            let error = try #require(throws: StoreError.self) {
                try StoreCoordinator(model: try shopModel()).addStore(StoreDescription(type: type, url: url, configuration: "Catalog"))
            }
            #expect(error.kind == .notASeedStore)
            #expect(error.path == url.path)
        }
        try Data("not a property list".utf8).write(to: url)
        #expect(throws: StoreError.self) {
            try StoreCoordinator(model: try shopModel()).addStore(StoreDescription(type: type, url: url, configuration: "Catalog"))
        }
    }
}
