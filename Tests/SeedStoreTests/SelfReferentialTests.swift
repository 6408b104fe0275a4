import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// A self-referential many-to-many (`similar` ↔ `similarTo` on Person) in a store the runtime
/// creates, in both layouts: links saved, read back from either side, and traversed by fetches.
@Suite("Self-referential many-to-many")
struct SelfReferentialTests {
    static let model = """
        {"name": "People", "versionIdentifiers": ["1"],
         "entities": [{"name": "Person",
           "attributes": [{"name": "name", "type": "String", "optional": false}],
           "relationships": [{"name": "similar", "destination": "Person", "inverse": "similarTo", "toMany": true},
                             {"name": "similarTo", "destination": "Person", "inverse": "similar", "toMany": true}]}]}
        """

    /// Ada is similar to Grace and Alan, Grace to Alan; Edsger to nobody.
    private func populatedStore(_ directory: TemporaryDirectory, layout: StoreLayout) throws -> (StoreCoordinator, URL) {
        let model = try ModelLoader.load(json: Data(Self.model.utf8), source: ModelSource(file: "people.json"))
        let url = directory.url("people.sqlite")
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(url: url, storeLayout: layout))
        let context = ObjectContext(coordinator: coordinator)
        var people: [String: ManagedObject] = [:]
        for name in ["Ada", "Grace", "Alan", "Edsger"] {
            let person = try context.insert(entity: "Person")
            person["name"] = .text(name)
            people[name] = person
        }
        try people["Ada"]!.addObject(people["Grace"]!, toRelationship: "similar")
        try people["Ada"]!.addObject(people["Alan"]!, toRelationship: "similar")
        try people["Grace"]!.addObject(people["Alan"]!, toRelationship: "similar")
        try context.save()
        return (coordinator, url)
    }

    private func names(_ format: String, _ coordinator: StoreCoordinator) throws -> [String] {
        let context = ObjectContext(coordinator: coordinator)
        let request = FetchRequest(entity: "Person", predicate: try FetchPredicate(format), sortDescriptors: [FetchSortDescriptor("name")])
        return try context.fetch(request).map { try $0.string("name") ?? "nil" }
    }

    @Test(arguments: StoreLayout.allCases)
    func fetchesTraverseIt(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let (written, url) = try populatedStore(directory, layout: layout)
        try written.stores.forEach { try $0.close() }
        // Read back from the file, read-only, as a seed is.
        let model = try ModelLoader.load(json: Data(Self.model.utf8), source: ModelSource(file: "people.json"))
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addStore(StoreDescription(url: url, isReadOnly: true))
        defer { try? store.close() }
        #expect(try names("similar.@count > 0", coordinator) == ["Ada", "Grace"])
        #expect(try names("ANY similar.name == 'Alan'", coordinator) == ["Ada", "Grace"])
        #expect(try names("ANY similarTo.name == 'Ada'", coordinator) == ["Alan", "Grace"])
        #expect(try names("similarTo.@count == 2", coordinator) == ["Alan"])
        #expect(try names("similar.@count == 0 AND similarTo.@count == 0", coordinator) == ["Edsger"])
        let context = ObjectContext(coordinator: coordinator)
        let alan = try #require(try context.fetch(FetchRequest(entity: "Person", predicate: FetchPredicate("name == 'Alan'"))).first)
        #expect(try alan.objects(forRelationship: "similarTo").map { try $0.string("name") ?? "" }.sorted() == ["Ada", "Grace"])
        #expect(try alan.objects(forRelationship: "similar").isEmpty)
    }

    /// Wire's stores name the join table after either side (framework 641 and 865): in both, and in
    /// their plain copies, the self client ignores the others, and they are ignored by it.
    @Test(
        .needsOracles("wireapp__wire-ios-data-model"),
        arguments: OracleFixtures.present([
            ("wireapp__wire-ios-data-model/stores/store2-3.wiredatabase", "2.3", 7),
            ("wireapp__wire-ios-data-model/stores/store2-52-0.wiredatabase", "2.52.0", 4),
        ]) { $0.0 })
    func applesStoresReadEitherNaming(_ path: String, modelVersion: String, ignored: Int) throws {
        let model = try ModelLoader.load(
            OracleFixtures.url("wireapp__wire-ios-data-model/zmessaging.xcdatamodeld/zmessaging\(modelVersion).xcdatamodel").path)
        let directory = TemporaryDirectory()
        let plain = directory.url("plain.sqlite")
        try LayoutConversion.convert(OracleFixtures.url(path).path, to: .plain, output: plain.path, model: model)
        for url in [OracleFixtures.url(path), plain] {
            let coordinator = StoreCoordinator(model: model)
            let store = try coordinator.addStore(StoreDescription(url: url, isReadOnly: true))
            defer { try? store.close() }
            let context = ObjectContext(coordinator: coordinator)
            func keys(_ format: String) throws -> [String] {
                try context.fetch(FetchRequest(entity: "UserClient", predicate: FetchPredicate(format))).map(\.objectID.key.displayText)
                    .sorted()
            }
            #expect(try keys("ignoredClients.@count == \(ignored)") == ["1"], "\(url.lastPathComponent)")
            #expect(try keys("ignoredByClients.@count > 0").count == ignored)
            #expect(try keys("ANY ignoredClients.remoteIdentifier != nil") == ["1"])
        }
    }

    /// In Core Data's layout the links are in Core Data's join table, named after the relationship
    /// whose name sorts last (`similarTo`), its first column pointing at the other side.
    @Test func coreDataKeepsThemInItsJoinTable() throws {
        let directory = TemporaryDirectory()
        let (coordinator, url) = try populatedStore(directory, layout: .coreData)
        try coordinator.stores.forEach { try $0.close() }
        let rows = try StoreDatabase.openReadOnly(url.path).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.ZNAME, b.ZNAME FROM Z_1SIMILARTO AS j JOIN ZPERSON AS a ON a.Z_PK = j.Z_1SIMILARTO
                    JOIN ZPERSON AS b ON b.Z_PK = j.Z_1SIMILAR ORDER BY 1, 2
                    """
            ).map { "\($0[0] as String) → \($0[1] as String)" }
        }
        #expect(rows == ["Ada → Alan", "Ada → Grace", "Grace → Alan"])
    }
}
