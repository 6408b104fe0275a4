import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// An abstract Place with Town and Village below it and Hamlet below Village, and postcodes that
/// point at any place: an inheritance tree in one table, built from a CSV per entity.
@Suite("Entity inheritance: one table per tree, fetches across the tree")
struct InheritanceTests {
    private let directory = TemporaryDirectory()

    private static let modelJSON = """
        {
          "name": "Places", "configurations": [{"name": "Seed", "entities": ["Hamlet", "Place", "Postcode", "Town", "Village"]}],
          "entities": [
            {"name": "Place", "abstract": true,
             "attributes": [{"name": "code", "type": "String", "optional": false}, {"name": "name", "type": "String", "optional": false}],
             "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "place", "toMany": true}],
             "uniquenessConstraints": [["code"]]},
            {"name": "Town", "parentEntity": "Place", "attributes": [{"name": "population", "type": "Integer 32", "optional": false}]},
            {"name": "Village", "parentEntity": "Place", "attributes": [{"name": "parish", "type": "String", "optional": false}]},
            {"name": "Hamlet", "parentEntity": "Village", "attributes": [{"name": "farms", "type": "Integer 16"}]},
            {"name": "Postcode",
             "attributes": [{"name": "postcode", "type": "String", "optional": false}],
             "relationships": [{"name": "place", "destination": "Place", "inverse": "postcodes"}],
             "uniquenessConstraints": [["postcode"]]}
          ]
        }
        """

    private func build() throws -> (BuiltStore, Model) {
        let (built, modelPath) = try buildStore(
            Self.modelJSON,
            files: [
                "towns.csv": "code,name,population\nCAN,Canterbury,55000\nASH,Ashford,83000\n",
                "villages.csv": "code,name,parish\nCHI,Chilham,Chilham\nWYE,Wye,Wye with Hinxhill\n",
                "hamlets.csv": "code,name,parish,farms\nYOC,Yockletts,Waltham,3\n",
                "postcodes.csv": "postcode,place_code\nCT1 1AA,CAN\nCT4 8DB,CHI\nTN25 5AA,WYE\nCT4 6NU,YOC\nTN24 8AA,ASH\n",
            ])
        return (built, try ModelLoader.load(modelPath))
    }

    /// Builds from a JSON model and CSVs in `in/` (the build starts from `postcodes.csv`); returns the store and the model's path.
    private func buildStore(_ modelJSON: String, files: [String: String]) throws -> (BuiltStore, String) {
        let modelPath = directory.write("model.json", modelJSON)
        for (name, text) in files { directory.write("in/\(name)", text) }
        var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
        options.model = modelPath
        options.outputDirectory = directory.path("out")
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        return (try SeedBuilder().build(request), modelPath)
    }

    @Test func treeIsOneTableWithAnEntityColumn() throws {
        let (built, model) = try build()
        #expect(built.rowCounts == ["Place": 0, "Town": 2, "Village": 2, "Hamlet": 1, "Postcode": 5])
        let tables = try query(built.storePath) { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'seed_%' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        }
        #expect(tables == ["Place", "Postcode"])
        let rows = try query(built.storePath) { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENTITY, code, population, parish, farms FROM Place ORDER BY code")
        }
        #expect(rows.map { $0["Z_ENTITY"] as String } == ["Town", "Town", "Village", "Village", "Hamlet"])
        #expect(rows.map { $0["code"] as String } == ["ASH", "CAN", "CHI", "WYE", "YOC"])
        #expect(rows.first { ($0["code"] as String) == "YOC" }?["farms"] == 3)

        // verify opens it and counts each entity's rows.
        let report = try Verifier().verify(built.storePath, seedModels: [model], userModels: [])
        let failed = report.checks.filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed)")
        #expect(report.models.first?.verdict == .compatible)
    }

    @Test func fetchesReadSubEntitiesSortAndFilterAcrossTheTree() throws {
        let (built, model) = try build()
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(
            StoreDescription(type: .sqlite, url: URL(fileURLWithPath: built.storePath), configuration: "Seed", isReadOnly: true))
        let context = ObjectContext(coordinator: coordinator)
        let places = try context.fetch(FetchRequest(entity: "Place", sortDescriptors: [FetchSortDescriptor("name")]))
        #expect(
            try places.map { "\($0.entity.name) \(try $0.string("name") ?? "")" } == [
                "Town Ashford", "Town Canterbury", "Village Chilham", "Village Wye", "Hamlet Yockletts",
            ])
        let villages = try context.fetch(
            FetchRequest(
                entity: "Village", predicate: try FetchPredicate("parish BEGINSWITH 'W'"), sortDescriptors: [FetchSortDescriptor("code")]))
        #expect(
            try villages.map { "\($0.entity.name) \(try $0.string("code") ?? "")" } == ["Village WYE", "Hamlet YOC"],
            "a fetch of Village includes Hamlets")
        #expect(try context.count(FetchRequest(entity: "Town")) == 2)
        #expect(try context.count(FetchRequest(entity: "Place", predicate: try FetchPredicate("name CONTAINS 'e'"))) == 3)

        let postcode = try #require(
            try context.fetch(FetchRequest(entity: "Postcode", predicate: try FetchPredicate("postcode == 'CT4 6NU'"))).first)
        let hamlet = try #require(try postcode.object(forRelationship: "place"))
        #expect(try hamlet.entity.name == "Hamlet" && hamlet["farms"] == 3 && hamlet.string("parish") == "Waltham")
        #expect(try hamlet.objects(forRelationship: "postcodes").map { try $0.string("postcode") } == ["CT4 6NU"])
        let byPlace = try context.fetch(FetchRequest(entity: "Postcode", predicate: try FetchPredicate("place.name == 'Wye'")))
        #expect(try byPlace.map { try $0.string("postcode") } == ["TN25 5AA"])
    }

    @Test(arguments: [StoreType.sqlite, .binary, .xml, .inMemory])
    func writableStoreInsertsValidatesAndDeletesSubEntities(type: StoreType) throws {
        let model = try ModelLoader.load(directory.write("places.json", Self.modelJSON))
        let coordinator = StoreCoordinator(model: model)
        let url = type == .inMemory ? nil : directory.url.appendingPathComponent("user.\(type.rawValue)")
        try coordinator.addStore(StoreDescription(type: type, url: url, configuration: "Seed"))
        let context = ObjectContext(coordinator: coordinator)
        #expect(throws: ContextError.self) { try context.insert(entity: "Place") }
        let town = try context.insert(entity: "Town")
        town["code"] = "DOV"
        town["name"] = "Dover"
        town["population"] = 31000
        let village = try context.insert(entity: "Village")
        village["code"] = "BAR"
        village["name"] = "Barham"
        let missing = #expect(throws: ContextError.self) { try context.save() }
        #expect(missing?.description.contains("parish") == true, "a sub-entity's own required attribute is checked")
        village["parish"] = "Barham"
        try context.save()

        let other = ObjectContext(coordinator: coordinator)
        let places = try other.fetch(FetchRequest(entity: "Place", sortDescriptors: [FetchSortDescriptor("code")]))
        #expect(places.map(\.entity.name) == ["Village", "Town"])
        places[1]["population"] = 32000
        try other.save()
        #expect(try ObjectContext(coordinator: coordinator).fetch(FetchRequest(entity: "Town")).first?["population"] == 32000)
        other.delete(places[0])
        try other.save()
        #expect(try ObjectContext(coordinator: coordinator).count(FetchRequest(entity: "Place")) == 1)
        guard let url else { return }
        // Reopened from its file, the rows keep their entities.
        let reopened = StoreCoordinator(model: model)
        try reopened.addStore(StoreDescription(type: type, url: url, configuration: "Seed"))
        #expect(try ObjectContext(coordinator: reopened).fetch(FetchRequest(entity: "Place")).map(\.entity.name) == ["Town"])
    }

    @Test func modelMistakesInATreeAreNamed() throws {
        var json = Self.modelJSON.replacingOccurrences(
            of: #"{"name": "farms", "type": "Integer 16"}"#, with: #"{"name": "population", "type": "String"}"#)
        let model = try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: "places.json"))
        let error = #expect(throws: ModelError.self) { try StoreSchema(model: model, configuration: "Seed") }
        #expect(
            error?.description.contains(
                "Hamlet.population: error: Hamlet.population and another attribute of the same name in the Place tree differ in type")
                == true)
        json = Self.modelJSON.replacingOccurrences(
            of: #"["Hamlet", "Place", "Postcode", "Town", "Village"]"#, with: #"["Hamlet", "Postcode"]"#)
        let partial = try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: "places.json"))
        let configurationError = #expect(throws: ModelError.self) { try StoreSchema(model: partial, configuration: "Seed") }
        #expect(configurationError?.description.contains("the configuration holds Hamlet but not its parent entity Village") == true)
    }

    @Test func propertyMovedUpTheTreeMigratesWithValuesKept() throws {
        let (built, _) = try build()
        let moved = Self.modelJSON
            .replacingOccurrences(
                of: #"{"name": "name", "type": "String", "optional": false}],"#,
                with: #"{"name": "name", "type": "String", "optional": false}, {"name": "parish", "type": "String"}],"#
            )
            .replacingOccurrences(
                of: #""attributes": [{"name": "parish", "type": "String", "optional": false}]"#, with: #""attributes": []"#)
        let destination = try ModelLoader.load(json: Data(moved.utf8), source: ModelSource(file: "places-2.json"))
        let output = directory.path("moved.sqlite")
        let result = try Migrator().migrate(built.storePath, to: destination, output: output)
        #expect(!result.plan.changes.contains { $0.kind == .removeAttribute }, "\(result.plan)")
        #expect(result.rowCounts == ["Place": 0, "Town": 2, "Village": 2, "Hamlet": 1, "Postcode": 5])
        let parishes = try query(output) { db in try Row.fetchAll(db, sql: "SELECT code, Z_ENTITY, parish FROM Place ORDER BY code") }
        #expect(parishes.map { $0["parish"] as String? } == [nil, nil, "Chilham", "Wye with Hinxhill", "Waltham"])
        #expect(parishes.map { $0["Z_ENTITY"] as String } == ["Town", "Town", "Village", "Village", "Hamlet"])
    }

    @Test func newParentEntityMigratesWithValuesAndLinksKept() throws {
        let v1 = """
            {
              "name": "Towns", "configurations": [{"name": "Seed", "entities": ["Postcode", "Town"]}],
              "entities": [
                {"name": "Town",
                 "attributes": [{"name": "code", "type": "String", "optional": false}, {"name": "name", "type": "String", "optional": false},
                                {"name": "population", "type": "Integer 32"}],
                 "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "town", "toMany": true}],
                 "uniquenessConstraints": [["code"]]},
                {"name": "Postcode", "attributes": [{"name": "postcode", "type": "String", "optional": false}],
                 "relationships": [{"name": "town", "destination": "Town", "inverse": "postcodes"}],
                 "uniquenessConstraints": [["postcode"]]}
              ]
            }
            """
        let v2 = """
            {
              "name": "Towns", "configurations": [{"name": "Seed", "entities": ["Place", "Postcode", "Town"]}],
              "entities": [
                {"name": "Place", "abstract": true,
                 "attributes": [{"name": "code", "type": "String", "optional": false}, {"name": "name", "type": "String", "optional": false}],
                 "uniquenessConstraints": [["code"]]},
                {"name": "Town", "parentEntity": "Place", "attributes": [{"name": "population", "type": "Integer 32"}],
                 "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "town", "toMany": true}]},
                {"name": "Postcode", "attributes": [{"name": "postcode", "type": "String", "optional": false}],
                 "relationships": [{"name": "town", "destination": "Town", "inverse": "postcodes"}],
                 "uniquenessConstraints": [["postcode"]]}
              ]
            }
            """
        let (built, _) = try buildStore(
            v1,
            files: [
                "towns.csv": "code,name,population\nCAN,Canterbury,55000\nASH,Ashford,83000\n",
                "postcodes.csv": "postcode,town_code\nCT1 1AA,CAN\nTN24 8AA,ASH\nCT2 7AA,CAN\n",
            ])

        let destination = try ModelLoader.load(json: Data(v2.utf8), source: ModelSource(file: "towns-2.json"))
        #expect(destination.entity(named: "Town")?.parentEntity == "Place" && destination.entity(named: "Town")?.attributes.count == 1)
        let output = directory.path("parent.sqlite")
        let result = try Migrator().migrate(built.storePath, to: destination, output: output)
        #expect(result.plan.changes.contains { $0.kind == .changeParent && $0.entity == "Town" }, "\(result.plan)")
        #expect(result.plan.changes.contains { $0.kind == .addEntity && $0.entity == "Place" })

        let coordinator = StoreCoordinator(model: destination)
        try coordinator.addStore(
            StoreDescription(type: .sqlite, url: URL(fileURLWithPath: output), configuration: "Seed", isReadOnly: true))
        let context = ObjectContext(coordinator: coordinator)
        let places = try context.fetch(FetchRequest(entity: "Place", sortDescriptors: [FetchSortDescriptor("code")]))
        #expect(
            try places.map { "\($0.entity.name) \(try $0.string("name") ?? "") \($0["population"].integerValue ?? 0)" } == [
                "Town Ashford 83000", "Town Canterbury 55000",
            ])
        let canterbury = try context.fetch(
            FetchRequest(
                entity: "Postcode", predicate: try FetchPredicate("town.code == 'CAN'"), sortDescriptors: [FetchSortDescriptor("postcode")])
        )
        #expect(try canterbury.map { try $0.string("postcode") } == ["CT1 1AA", "CT2 7AA"], "links kept")
    }
}
