import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// The model Core Data caches in its stores' `Z_MODELCACHE` (`FORMAT.md` §3), read through
/// ``CoreDataStoreFile/cachedModel(at:)``.
@Suite("Core Data model cache")
struct CoreDataModelCacheTests {
    let temporary = TemporaryDirectory()
    var folder: URL { temporary.url }

    static func oracle(_ path: String) -> URL { OracleFixtures.url(path) }

    /// SampleModel2's cache holds what only a compiled model shows of it: fetched properties,
    /// a derived attribute, configurations and a to-many stored with -1 as its maximum.
    @Test func theCachedModelKeepsFetchedPropertiesDerivationsAndConfigurations() throws {
        let model = try CoreDataStoreFile.cachedModel(
            at: Self.oracle("alemar11__CoreDataPlus/SampleModel2/Fixtures/SampleModel2_V1.sqlite"))
        #expect(model.name == "SampleModel2_V1")
        let author = try #require(model.entity(named: "Author"))
        #expect(author.parentEntity == "Writer" && model.entity(named: "Writer")?.isAbstract == true)
        #expect(author.attribute(named: "age") == nil, "inherited from Writer, kept there")
        #expect(author.fetchedProperty(named: "feedbacks")?.predicate == "authorAlias == $FETCH_SOURCE.alias")
        let favourites = try #require(author.fetchedProperty(named: "favFeedbacks"))
        #expect(favourites.entity == "Feedback" && favourites.userInfo == ["search": "great"])
        #expect(favourites.predicate == "authorAlias == $FETCH_SOURCE.alias AND comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search")
        let books = try #require(author.relationship(named: "books"))
        #expect(books.isToMany && books.maxCount == -1 && books.deleteRule == .cascade && books.inverse == "author")
        let pagesCount = try #require(model.entity(named: "Book")?.attribute(named: "pagesCount"))
        #expect(pagesCount.derivation == Attribute.Derivation(expression: "count:(pages)"))
        #expect(pagesCount.type == .integer64)
        let title = try #require(model.entity(named: "Book")?.attribute(named: "title"))
        #expect(title.minValue == "3" && title.maxValue == "50", "Xcode's length range, archived as validation predicates")
        #expect(model.configurations.map(\.name) == ["SampleConfigurationV1"])
        #expect(model.configurations.first?.entities == ["Author", "Book", "Feedback", "GraphicNovel", "Page", "Writer"])
    }

    /// wire's stores cache subentities with proxies for inherited properties, and properties with
    /// a versionHashModifier and an ordered to-many.
    @Test(.needsOracles("wireapp__wire-ios-data-model"))
    func proxiesOfInheritedPropertiesAreLeftToTheParent() throws {
        let model = try CoreDataStoreFile.cachedModel(at: Self.oracle("wireapp__wire-ios-data-model/stores/store2-3.wiredatabase"))
        let asset = try #require(model.entity(named: "AssetClientMessage"))
        #expect(asset.parentEntity == "Message")
        #expect(asset.attribute(named: "nonce") == nil && model.entity(named: "Message")?.attribute(named: "nonce") != nil)
        #expect(asset.relationship(named: "dataSet")?.isOrdered == true)
        #expect(model.entity(named: "Message")?.attribute(named: "nonce_data")?.versionHashModifier == "add_index1")
    }

    /// What Core Data cached is a model Core Data accepted: seedbuild's checks find no error in
    /// it, and the JSON form a built store embeds gives it back with the same hashes.
    @Test(
        arguments: OracleFixtures.present([
            "alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel_V1.sqlite",
            "alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel_V2.sqlite",
            "alemar11__CoreDataPlus/SampleModel2/Fixtures/SampleModel2_V1.sqlite",
            "alemar11__CoreDataPlus/SampleModel2/Fixtures/SampleModel2_V2.sqlite",
            "alemar11__CoreDataPlus/SampleModel3/Fixtures/SampleModel3_V1.sqlite",
            "wireapp__wire-ios-data-model/stores/store2-3.wiredatabase",
            "wireapp__wire-ios-data-model/stores/store2-52-0.wiredatabase",
        ]))
    func everyCachedModelPassesValidation(store: String) throws {
        let model = try CoreDataStoreFile.cachedModel(at: Self.oracle(store))
        let errors = model.validate().filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.map(\.description).joined(separator: "\n"))")
        let json = try ModelLoader.load(json: model.canonicalJSON(), source: ModelSource(file: store, version: "embedded"))
        #expect(json == model)
        #expect(json.entityVersionHashes == model.entityVersionHashes)
    }

    /// A store's cached model and the `contents` of the version that wrote it: the same model.
    @Test(
        arguments: OracleFixtures.present([
            (
                "wireapp__wire-ios-data-model/stores/store2-3.wiredatabase",
                "wireapp__wire-ios-data-model/zmessaging.xcdatamodeld/zmessaging2.3.xcdatamodel"
            ),
            (
                "wireapp__wire-ios-data-model/stores/store2-52-0.wiredatabase",
                "wireapp__wire-ios-data-model/zmessaging.xcdatamodeld/zmessaging2.52.0.xcdatamodel"
            ),
            (
                "alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel_V1.sqlite",
                "alemar11__CoreDataPlus/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"
            ),
            (
                "alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel_V2.sqlite",
                "alemar11__CoreDataPlus/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"
            ),
            (
                "alemar11__CoreDataPlus/SampleModel3/Fixtures/SampleModel3_V1.sqlite",
                "alemar11__CoreDataPlus/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"
            ),
        ]) { $0.0 })
    func theCachedModelIsTheContentsThatWroteTheStore(store: String, contents: String) throws {
        let cached = try CoreDataStoreFile.cachedModel(at: Self.oracle(store))
        let source = try ModelLoader.load(Self.oracle(contents).path)
        #expect(cached.entities.map(\.name) == source.entities.map(\.name))
        for entity in source.entities {
            let other = try #require(cached.entity(named: entity.name))
            #expect(other.parentEntity == entity.parentEntity && other.isAbstract == entity.isAbstract, "\(entity.name)")
            for attribute in entity.attributes {
                var cachedAttribute = other.attribute(named: attribute.name)
                // Xcode writes a default of zero as "0" or "0.0"; the archive holds the number.
                if let cachedDefault = cachedAttribute?.defaultValue.flatMap(Double.init),
                    cachedDefault == attribute.defaultValue.flatMap(Double.init)
                {
                    cachedAttribute?.defaultValue = attribute.defaultValue
                }
                #expect(cachedAttribute == attribute, "\(entity.name).\(attribute.name)")
            }
            #expect(other.attributes.map(\.name) == entity.attributes.map(\.name), "\(entity.name)")
            #expect(other.indexes == entity.indexes, "\(entity.name)")
            #expect(other.relationships == entity.relationships, "\(entity.name)")
            #expect(other.fetchedProperties == entity.fetchedProperties, "\(entity.name)")
        }
    }

    @Test(.needsOracles("Sunic__DigitalOrder"))
    func aStoreWithoutACachedModelIsRefusedSayingWhatToGiveInstead() throws {
        do {
            _ = try CoreDataStoreFile.cachedModel(at: Self.oracle("Sunic__DigitalOrder/CoreData.sqlite"))
            Issue.record("a store without Z_MODELCACHE gave a model")
        } catch let error as StoreError {
            #expect(error.kind == .noModel)
            #expect(error.description.contains("CoreData.sqlite: the store caches no model: it has no Z_MODELCACHE table"), "\(error)")
            #expect(error.description.contains(".xcdatamodeld, .momd or .mom"))
        }
        let text = folder.appendingPathComponent("notes.sqlite")
        try Data("not a database at all, just some text that is long enough".utf8).write(to: text)
        #expect(throws: StoreError.self) { try CoreDataStoreFile.cachedModel(at: text) }
        #expect(throws: StoreError.self) { try CoreDataStoreFile.cachedModel(at: folder.appendingPathComponent("missing.sqlite")) }
    }

    /// A store in use keeps its newest pages in the `-wal`: the cache is read through it, as Core
    /// Data would see the store.
    @Test func aCacheStillInTheWriteAheadLogIsRead() throws {
        let blob = try Self.cachedBlob("alemar11__CoreDataPlus/SampleModel3/Fixtures/SampleModel3_V1.sqlite")
        let store = folder.appendingPathComponent("InUse.sqlite")
        let writer = try DatabaseQueue(path: store.path)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
            try db.execute(sql: "INSERT INTO Z_MODELCACHE VALUES (?)", arguments: [blob])
        }
        let model = try CoreDataStoreFile.cachedModel(at: store)
        #expect(model.entities.map(\.name) == ["User"])
        try writer.close()
    }

    /// The raw `Z_CONTENT` of an oracle store, opened immutable: other test runs may read the
    /// shared oracles at the same time.
    static func cachedBlob(_ store: String) throws -> Data {
        let queue = try StoreDatabase.openReadOnly(oracle(store).path)
        defer { try? queue.close() }
        return try #require(try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") })
    }

    /// A cache that is not DEFLATE, is cut short, or inflates to something that is not a model.
    @Test func aDamagedCacheIsRefusedNamingTheStore() throws {
        let blob = try Self.cachedBlob("alemar11__CoreDataPlus/SampleModel3/Fixtures/SampleModel3_V1.sqlite")
        let cases: [(Data, String)] = [
            (Data("plain text, not deflate".utf8), "does not inflate"),
            (blob.prefix(blob.count / 2), "does not inflate: the compressed data ends early"),
            (Data([0x03, 0x00]), "not a compiled Core Data model"),
        ]
        for (index, (content, reason)) in cases.enumerated() {
            let store = folder.appendingPathComponent("damaged\(index).sqlite")
            let queue = try DatabaseQueue(path: store.path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
                try db.execute(sql: "INSERT INTO Z_MODELCACHE VALUES (?)", arguments: [content])
            }
            try queue.close()
            do {
                _ = try CoreDataStoreFile.cachedModel(at: store)
                Issue.record("a damaged cache gave a model: \(reason)")
            } catch {
                #expect("\(error)".contains("damaged\(index).sqlite"), "\(error)")
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
    }
}
