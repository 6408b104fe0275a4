import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

@Suite("Applying a lightweight migration to a store")
struct MigratorTests {
    private let directory = TemporaryDirectory()

    /// The test store (County 2 rows, Postcode 3 rows) built from the test model.
    private func builtStore() throws -> (String, Model) {
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        return (built.storePath, try ModelLoader.load(directory.path("model.json")))
    }

    private func migrate(_ change: (inout Model) -> Void) throws -> (Migrator.Result, String) {
        let (store, model) = try builtStore()
        var destination = model
        change(&destination)
        let output = directory.path("migrated-\(UUID().uuidString).sqlite")
        return (try migrateThroughCoreDataLayout(store, to: destination, output: output), output)
    }

    private func edit(_ model: inout Model, _ entity: String, _ body: (inout Entity) -> Void) {
        let index = model.entities.firstIndex { $0.name == entity }!
        body(&model.entities[index])
    }

    @Test func sampleV1StoreMigratesToV2() throws {
        // Version 1 has no ward attribute: the build skips the sample's ward column.
        let built = try SampleSeed.build(
            into: directory.path("v1"), model: "schemas/PostCodesModel.xcdatamodeld/PostCodesModel.xcdatamodel", userModels: [],
            layout: .plain)
        let before = try Data(contentsOf: URL(fileURLWithPath: built.storePath))
        let districts = try query(built.storePath) { db in
            try Row.fetchAll(db, sql: "SELECT postcode, district FROM Postcode ORDER BY postcode")
        }

        let v2 = try ModelLoader.load(repositoryPath("schemas/PostCodesModel.xcdatamodeld"))
        let output = directory.path("v2.sqlite")
        let result = try Migrator().migrate(built.storePath, to: v2, output: output)
        #expect(result.plan.changes.map(\.kind) == [.renameAttribute, .addAttribute])
        #expect(result.rowCounts == ["County": 12, "Postcode": 311])
        let areas = try query(output) { db in try Row.fetchAll(db, sql: "SELECT postcode, area, ward FROM Postcode ORDER BY postcode") }
        #expect(
            areas.map { $0["area"] as String? } == districts.map { $0["district"] as String? }, "renamed values arrive under the new name")
        #expect(areas.allSatisfy { ($0["ward"] as DatabaseValue).isNull })
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: output))
        #expect(metadata.versionHashes == (try v2.versionHashes(configuration: "PostCodesConf")))
        #expect(metadata[StoreMetadata.Key.modelVersionIdentifiers] == .array(["2"]))
        #expect(metadata["migratedFrom"]?.objectValue?["modelVersionIdentifiers"] == .array(["1"]))
        let (embedded, configuration, _) = try Migrator.embeddedModel(of: output)
        let v2Seed = try v2.restricted(to: "PostCodesConf")
        #expect(configuration == "PostCodesConf" && embedded == v2Seed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: built.storePath)) == before, "the source is untouched")
        #expect(try MappingInference.infer(from: embedded, to: v2, configuration: "PostCodesConf").isEmpty)
    }

    @Test func attributesAddedRequiredRemovedAndOptional() throws {
        let (result, output) = try migrate { model in
            edit(&model, "Postcode") { entity in
                entity.attributes.removeAll { $0.name == "introduced" }
                entity.attributes.append(Attribute(name: "source", type: .string, isOptional: false, defaultValue: "ONS"))
                entity.attributes[entity.attributes.firstIndex { $0.name == "latitude" }!].isOptional = false
                entity.attributes[entity.attributes.firstIndex { $0.name == "latitude" }!].defaultValue = "0"
            }
            edit(&model, "County") { entity in entity.attributes[entity.attributes.firstIndex { $0.name == "name" }!].isOptional = true }
        }
        #expect(Set(result.plan.changes.map(\.kind)) == [.removeAttribute, .addAttribute, .makeRequired, .makeOptional])
        let rows = try query(output) { db in try Row.fetchAll(db, sql: "SELECT * FROM Postcode ORDER BY postcode") }
        #expect(rows.map { $0["source"] as String } == ["ONS", "ONS", "ONS"])
        #expect(rows.map { $0["latitude"] as Double } == [51.28, 0, 55.95], "COALESCE fills the empty value with the default")
        #expect(!rows[0].hasColumn("introduced"))
        let sql = try query(output) { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'County'") } ?? ""
        #expect(sql.contains("\"name\" TEXT,"), "NOT NULL dropped")
    }

    @Test func entitiesRenamedAddedRemoved() throws {
        let (result, output) = try migrate { model in
            edit(&model, "County") { entity in
                entity.name = "Region"
                entity.renamingIdentifier = "County"
            }
            edit(&model, "Postcode") { entity in entity.relationships[0].destination = "Region" }
            model.entities.append(Entity(name: "Note", attributes: [Attribute(name: "text", type: .string)]))
            model.configurations = [Configuration(name: "Seed", entities: ["Note", "Postcode", "Region"])]
        }
        #expect(result.plan.changes.contains { $0.kind == .renameEntity && $0.oldName == "County" })
        #expect(result.rowCounts == ["Region": 2, "Postcode": 3, "Note": 0])
        let joined = try query(output) { db in
            try String.fetchAll(db, sql: "SELECT r.code FROM Postcode p JOIN Region r ON r.Z_PK = p.county ORDER BY p.postcode")
        }
        #expect(joined == ["KEN", "KEN", "EDI"], "links survive the rename")
    }

    @Test func toOneBecomesToManyAndBack() throws {
        // Postcode.county (a column) becomes a many-to-many pair, stored in a join table.
        let (toMany, output) = try migrate { model in
            edit(&model, "Postcode") { entity in
                entity.relationships[0].isToMany = true
                entity.relationships[0].maxCount = 0
            }
        }
        #expect(toMany.plan.changes.map(\.kind) == [.changeCardinality])
        let pairs = try query(output) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM County_postcodes") }
        #expect(pairs == 3)

        // And back: the join table becomes a column again.
        let back = directory.path("back.sqlite")
        let original = try ModelLoader.load(directory.path("model.json"))
        let result = try Migrator().migrate(output, to: original, output: back)
        #expect(result.droppedLinks.isEmpty)
        let counties = try query(back) { db in
            try String.fetchAll(db, sql: "SELECT c.code FROM Postcode p JOIN County c ON c.Z_PK = p.county ORDER BY p.postcode")
        }
        #expect(counties == ["KEN", "KEN", "EDI"])
    }

    @Test func refusalWritesNothing() throws {
        let (store, model) = try builtStore()
        var destination = model
        edit(&destination, "Postcode") { entity in entity.attributes[entity.attributes.firstIndex { $0.name == "latitude" }!].type = .string
        }
        let output = directory.path("refused.sqlite")
        #expect(throws: MigrationRefusal.self) { try Migrator().migrate(store, to: destination, output: output) }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test func addedUniquenessConstraintWithDuplicatesIsRefusedWithExamples() throws {
        let (store, model) = try builtStore()
        var destination = model
        edit(&destination, "Postcode") { entity in entity.uniquenessConstraints.append(["countryCode"]) }
        let output = directory.path("unique.sqlite")
        let error = #expect(throws: StoreError.self) { try Migrator().migrate(store, to: destination, output: output) }
        #expect(error?.message.contains("has duplicates, e.g. (E92000001) ×2") == true)
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

@Suite("Data after each inferable row of the rule table")
struct MigratorRuleRowTests {
    private let directory = TemporaryDirectory()

    private func migrated(_ change: (inout Model) -> Void) throws -> (Migrator.Result, String) {
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        var model = try ModelLoader.load(directory.path("model.json"))
        change(&model)
        let output = directory.path("migrated.sqlite")
        return (try migrateThroughCoreDataLayout(built.storePath, to: model, output: output), output)
    }

    private func index(_ model: Model, _ entity: String) -> Int {
        model.entities.firstIndex { $0.name == entity }!
    }

    @Test func removeEntity() throws {
        let (result, output) = try migrated { model in
            model.entities.removeAll { $0.name == "County" }
            model.entities[index(model, "Postcode")].relationships = []
            model.configurations = [Configuration(name: "Seed", entities: ["Postcode"])]
        }
        #expect(result.plan.changes.contains { $0.kind == .removeEntity && $0.entity == "County" })
        let tables = try query(output) { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'seed_%' AND name NOT LIKE 'sqlite_%'")
        }
        #expect(tables == ["Postcode"])
        #expect(result.rowCounts["Postcode"] == 3)
    }

    @Test func addRenameAndRemoveRelationships() throws {
        let (added, addedStore) = try migrated { model in
            model.entities[index(model, "County")].relationships.append(Relationship(name: "capital", destination: "County"))
        }
        #expect(added.plan.changes.map(\.kind) == [.addRelationship])
        #expect(try query(addedStore) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM County WHERE capital IS NULL") } == 2)

        let renamingDirectory = MigratorRuleRowTests()
        let (renamed, renamedStore) = try renamingDirectory.migrated { model in
            let p = index(model, "Postcode"), c = index(model, "County")
            model.entities[p].relationships = [
                Relationship(name: "region", destination: "County", inverse: "postcodes", renamingIdentifier: "county")
            ]
            model.entities[c].relationships[0].inverse = "region"
        }
        #expect(renamed.plan.changes.contains { $0.kind == .renameRelationship && $0.oldName == "county" })
        let links = try query(renamedStore) { db in
            try String.fetchAll(db, sql: "SELECT c.code FROM Postcode p JOIN County c ON c.Z_PK = p.region ORDER BY p.postcode")
        }
        #expect(links == ["KEN", "KEN", "EDI"])

        let removingDirectory = MigratorRuleRowTests()
        let (removed, removedStore) = try removingDirectory.migrated { model in
            model.entities[index(model, "Postcode")].relationships = []
            model.entities[index(model, "County")].relationships = []
        }
        #expect(Set(removed.plan.changes.map(\.kind)) == [.removeRelationship])
        let columns = try query(removedStore) { db in try Row.fetchAll(db, sql: "PRAGMA table_info(Postcode)").map { $0["name"] as String }
        }
        #expect(!columns.contains("county"))
    }

    @Test func deleteRuleOnlyChangesNothingStored() throws {
        let (result, output) = try migrated { model in
            model.entities[index(model, "County")].relationships[0].deleteRule = .deny
        }
        #expect(result.plan.changes.map(\.kind) == [.changeRelationshipRules])
        #expect(try query(output) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Postcode WHERE county IS NOT NULL") } == 3)
    }

    @Test func unorderedBecomesOrdered() throws {
        let (result, output) = try migrated { model in
            model.entities[index(model, "County")].relationships[0].isOrdered = true
        }
        #expect(result.plan.changes.map(\.kind) == [.changeCardinality])
        let rows = try query(output) { db in try Row.fetchAll(db, sql: "SELECT source, destination, position FROM County_postcodes") }
        #expect(rows.count == 3, "the three links moved from the column into the ordered join table")
    }

    @Test func addedUniquenessConstraintWithoutDuplicates() throws {
        let (result, output) = try migrated { model in
            model.entities[index(model, "County")].uniquenessConstraints.append(["name"])
        }
        #expect(result.plan.changes.map(\.kind) == [.addUniquenessConstraint])
        let indexes = try query(output) { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'County' AND sql LIKE 'CREATE UNIQUE%'")
        }
        #expect(indexes.sorted() == ["County_unique_code", "County_unique_name"])
    }

    @Test func renamingIdentifierWinsOverANewAttributeReusingTheOldName() throws {
        let (result, output) = try migrated { model in
            let county = index(model, "County")
            let old = model.entities[county].attributes.first { $0.name == "name" }!
            model.entities[county].attributes.removeAll { $0.name == "name" }
            model.entities[county].attributes.append(
                Attribute(name: "title", type: old.type, isOptional: old.isOptional, renamingIdentifier: "name"))
            model.entities[county].attributes.append(Attribute(name: "name", type: .string))
        }
        #expect(
            result.plan.changes.map { "\($0.kind.rawValue) \($0.property ?? "")" }.sorted() == [
                "addAttribute name", "renameAttribute title",
            ])
        let rows = try query(output) { db in try Row.fetchAll(db, sql: "SELECT code, title, name FROM County ORDER BY code") }
        #expect(rows.map { $0["title"] as String? } == ["Edinburgh, City of", "Kent"], "the values follow the renaming identifier")
        #expect(rows.allSatisfy { ($0["name"] as DatabaseValue).isNull }, "the new attribute that reuses the old name starts empty")
    }

    @Test func integersWidenWithValuesKeptAndNarrowingIsRefused() throws {
        let (result, output) = try migrated { model in
            let county = index(model, "County")
            let position = model.entities[county].attributes.firstIndex { $0.name == "population" }!
            model.entities[county].attributes[position].type = .integer64
        }
        #expect(result.plan.changes.map(\.kind) == [.widenType])
        let populations = try query(output) { db in try Row.fetchAll(db, sql: "SELECT population FROM County ORDER BY code") }
        #expect(populations.map { $0["population"] as Int64? } == [nil, 1_500_000])

        let refused = #expect(throws: MigrationRefusal.self) {
            try migrated { model in
                let county = index(model, "County")
                let position = model.entities[county].attributes.firstIndex { $0.name == "population" }!
                model.entities[county].attributes[position].type = .integer16
            }
        }
        #expect(refused?.messages.contains { $0.contains("County.population narrowed from Integer 32 to Integer 16") } == true)
    }

    @Test func indexOnlyChangeIsCompatibleInVerifyAndMigrateAlike() throws {
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        var model = try ModelLoader.load(directory.path("model.json"))
        model.entities[index(model, "Postcode")].indexes.append(FetchIndex(name: "byLatitude", elements: [.init(property: "latitude")]))
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: built.storePath))
        let (embedded, configuration, _) = try Migrator.embeddedModel(of: built.storePath)
        #expect(metadata.hashDifferences(from: model, embeddedModel: embedded).isEmpty, "the store fits: indexes are not hashed")
        #expect(try MappingInference.infer(from: embedded, to: model, configuration: configuration).isEmpty)
    }

    @Test func addedUniquenessConstraintChangesTheHashAndIsCheckedForDuplicates() throws {
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        var model = try ModelLoader.load(directory.path("model.json"))
        model.entities[index(model, "County")].uniquenessConstraints.append(["name"])
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: built.storePath))
        let (embedded, _, _) = try Migrator.embeddedModel(of: built.storePath)
        let differences = metadata.hashDifferences(from: model, embeddedModel: embedded)
        #expect(differences.map(\.description) == ["County (uniqueness constraints changed)"])
        let output = directory.path("unique.sqlite")
        let result = try Migrator().migrate(built.storePath, to: model, output: output)
        #expect(result.plan.changes.map(\.kind) == [.addUniquenessConstraint])
        let unique = try query(output) { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE%' AND tbl_name IN ('County', 'ZCOUNTY')"
            )
        }
        #expect(unique.contains { $0.contains("name") })
    }

    @Test func removedEntityBesideAnUnrelatedNewOneIsLightweightWithAWarning() throws {
        let (result, output) = try migrated { model in
            model.entities.removeAll { $0.name == "County" }
            model.entities[index(model, "Postcode")].relationships = []
            model.entities.append(Entity(name: "Ward", attributes: [Attribute(name: "label", type: .string)]))
            model.configurations = [Configuration(name: "Seed", entities: ["Postcode", "Ward"])]
        }
        #expect(Set(result.plan.changes.map(\.kind)) == [.removeEntity, .addEntity, .removeRelationship])
        #expect(
            result.plan.warnings == [
                "County is removed (its rows dropped) while Ward is added; if that was meant as a rename, it needs a renaming identifier of \"County\""
            ])
        #expect(try query(output) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Postcode") } == 3)
    }
}

/// Migrates a store built in Core Data's layout (the builder's default), then writes the result in
/// the plain layout at `output`, whose tables the tests read by their model names.
func migrateThroughCoreDataLayout(_ store: String, to destination: Model, output: String) throws -> Migrator.Result {
    #expect(try StoreFile.layout(at: store) == .coreData)
    let coreData = output + ".coredata.sqlite"
    var result = try Migrator().migrate(store, to: destination, output: coreData)
    #expect(try StoreFile.layout(at: coreData) == .coreData)
    try LayoutConversion.convert(coreData, to: .plain, output: output, model: destination)
    result.outputPath = output
    return result
}
