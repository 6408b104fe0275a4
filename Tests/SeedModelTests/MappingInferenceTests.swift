import Foundation
import Testing

@testable import SeedModel

@Suite("Inferring a lightweight migration (DESIGN §4 rule table)")
struct MappingInferenceTests {
    private let county = Entity(
        name: "County",
        attributes: [Attribute(name: "code", type: .string, isOptional: false), Attribute(name: "name", type: .string)],
        relationships: [Relationship(name: "postcodes", destination: "Postcode", inverse: "county", isToMany: true, deleteRule: .cascade)],
        uniquenessConstraints: [["code"]])
    private let postcode = Entity(
        name: "Postcode",
        attributes: [
            Attribute(name: "postcode", type: .string, isOptional: false), Attribute(name: "latitude", type: .double),
            Attribute(name: "district", type: .string),
        ],
        relationships: [Relationship(name: "county", destination: "County", inverse: "postcodes")],
        uniquenessConstraints: [["postcode"]])

    private func model(_ entities: [Entity], configurations: [Configuration]? = nil) -> Model {
        Model(
            name: "M", entities: entities, configurations: configurations ?? [Configuration(name: "Seed", entities: entities.map(\.name))])
    }

    private var base: Model { model([county, postcode]) }

    private func plan(_ change: (inout Entity, inout Entity) -> Void) throws(MigrationRefusal) -> MigrationPlan {
        var (c, p) = (county, postcode)
        change(&c, &p)
        return try MappingInference.infer(from: base, to: model([c, p]), configuration: "Seed")
    }

    private func refusal(_ change: (inout Entity, inout Entity) -> Void) -> [String] {
        do {
            _ = try plan(change)
            return []
        } catch {
            return error.reasons.map(\.message)
        }
    }

    private func kinds(_ plan: MigrationPlan) -> [String] {
        plan.changes.map { "\($0.kind.rawValue) \($0.entity)\($0.property.map { ".\($0)" } ?? "")" }
    }

    @Test func entities() throws {
        let rating = Entity(name: "Rating", attributes: [Attribute(name: "stars", type: .integer16)])
        #expect(
            kinds(try MappingInference.infer(from: base, to: model([county, postcode, rating]), configuration: "Seed")) == [
                "addEntity Rating"
            ])
        #expect(
            kinds(try MappingInference.infer(from: model([county, postcode, rating]), to: base, configuration: "Seed")) == [
                "removeEntity Rating"
            ])
        var region = county
        region.name = "Region"
        region.renamingIdentifier = "County"
        var pointed = postcode
        pointed.relationships = [Relationship(name: "county", destination: "Region", inverse: "postcodes")]
        region.relationships = [
            Relationship(name: "postcodes", destination: "Postcode", inverse: "county", isToMany: true, deleteRule: .cascade)
        ]
        let renamed = try MappingInference.infer(from: base, to: model([region, pointed]), configuration: "Seed")
        // Postcode.county now names Region: its hash changes, its table does not (SQLite renames references).
        #expect(kinds(renamed) == ["changeVersionHashOnly Postcode", "renameEntity Region"], "the relationship follows the renamed entity")
        #expect(renamed.changes[1].oldName == "County")
    }

    @Test func vanishedEntityWithoutRenamingIdentifierIsRefused() {
        var region = county
        region.name = "Region"
        let reasons = (try? MappingInference.infer(from: base, to: model([region, postcode]), configuration: "Seed")) == nil
        #expect(reasons)
        do {
            _ = try MappingInference.infer(from: base, to: model([region, postcode]), configuration: "Seed")
        } catch {
            #expect(
                error.reasons.contains {
                    $0.entity == "County"
                        && $0.message.contains("disappeared while Region, with the same properties, appeared without a renaming identifier")
                })
        }
    }

    @Test func attributesAddedRemovedRenamed() throws {
        #expect(kinds(try plan { _, p in p.attributes.append(Attribute(name: "ward", type: .string)) }) == ["addAttribute Postcode.ward"])
        let withDefault = try plan { _, p in
            p.attributes.append(Attribute(name: "active", type: .boolean, isOptional: false, defaultValue: "YES"))
        }
        #expect(kinds(withDefault) == ["addAttribute Postcode.active"])
        #expect(withDefault.changes[0].detail.contains("NOT NULL DEFAULT YES"))
        #expect(
            refusal { _, p in p.attributes.append(Attribute(name: "active", type: .boolean, isOptional: false)) }
                == [
                    "Postcode.active is new and non-optional without a default value; stored rows would have no value. Give it a default value or make it optional."
                ])
        #expect(kinds(try plan { _, p in p.attributes.removeAll { $0.name == "latitude" } }) == ["removeAttribute Postcode.latitude"])
        let renamed = try plan { _, p in
            p.attributes.removeAll { $0.name == "district" }
            p.attributes.append(Attribute(name: "area", type: .string, renamingIdentifier: "district"))
        }
        #expect(kinds(renamed) == ["renameAttribute Postcode.area"])
        #expect(
            refusal { _, p in
                p.attributes.removeAll { $0.name == "district" }
                p.attributes.append(Attribute(name: "area", type: .string))
            }.first?.contains("disappeared while area (String) appeared without a renaming identifier") == true)
    }

    @Test func optionality() throws {
        #expect(kinds(try plan { c, _ in c.attributes[0].isOptional = true }) == ["makeOptional County.code"])
        #expect(
            kinds(
                try plan { c, _ in
                    c.attributes[1].isOptional = false
                    c.attributes[1].defaultValue = "Unknown"
                }) == ["makeRequired County.name"])
        #expect(
            refusal { c, _ in c.attributes[1].isOptional = false }.first?.contains("became non-optional without a default value") == true)
    }

    @Test func typeChangeIsRefusedNamingBothTypes() {
        #expect(
            refusal { _, p in p.attributes[1].type = .string } == [
                "Postcode.latitude changed type from Double to String; lightweight migration cannot change a type. Add a new attribute instead and keep the old one, or ship a new model version with a data step."
            ])
    }

    @Test func relationships() throws {
        let added = try plan { c, _ in c.relationships.append(Relationship(name: "capital", destination: "Postcode")) }
        #expect(kinds(added) == ["addRelationship County.capital"])
        let removed = try plan { c, p in
            c.relationships = []
            p.relationships = []
        }
        #expect(Set(kinds(removed)) == ["removeRelationship County.postcodes", "removeRelationship Postcode.county"])
        let renamed = try plan { c, p in
            p.relationships = [Relationship(name: "region", destination: "County", inverse: "postcodes", renamingIdentifier: "county")]
            c.relationships[0].inverse = "region"
        }
        #expect(kinds(renamed).contains("renameRelationship Postcode.region"))
        let toMany = try plan { c, p in
            p.relationships[0].isToMany = true
            p.relationships[0].maxCount = 0
        }
        #expect(kinds(toMany) == ["changeCardinality Postcode.county"])
        #expect(kinds(try plan { c, _ in c.relationships[0].isOrdered = true }) == ["changeCardinality County.postcodes"])
        #expect(kinds(try plan { c, _ in c.relationships[0].deleteRule = .deny }) == ["changeRelationshipRules County.postcodes"])
        #expect(kinds(try plan { c, _ in c.relationships[0].minCount = 1 }) == ["changeRelationshipRules County.postcodes"])
        #expect(
            refusal { _, p in p.relationships[0].destination = "Postcode" }.first?.contains("changed destination from County to Postcode")
                == true)
    }

    @Test func movingConfigurationIsNotAMigration() {
        let destination = model(
            [county, postcode],
            configurations: [
                Configuration(name: "Seed", entities: ["Postcode"]), Configuration(name: "Other", entities: ["County"]),
            ])
        do {
            _ = try MappingInference.infer(from: base, to: destination, configuration: "Seed")
            Issue.record("expected a refusal")
        } catch {
            #expect(error.reasons.contains { $0.entity == "County" && $0.message.contains("moved to configuration Other") })
        }
    }

    @Test func defaultsUserInfoAndValidationChangeNothing() throws {
        let same = try plan { c, p in
            c.attributes[1].defaultValue = "x"
            c.userInfo = ["a": "b"]
            p.attributes[1].minValue = "-90"
            p.representedClassName = "PostcodeMO"
        }
        #expect(same.isEmpty)
        #expect(kinds(try plan { _, p in p.versionHashModifier = "2" }) == ["changeVersionHashOnly Postcode"])
    }

    @Test func uniquenessConstraintsAndIndexes() throws {
        #expect(kinds(try plan { c, _ in c.uniquenessConstraints.append(["name"]) }) == ["addUniquenessConstraint County.name"])
        // Indexes are not hashed: an index-only change needs no migration.
        #expect(try plan { _, p in p.indexes.append(FetchIndex(name: "byDistrict", elements: [.init(property: "district")])) }.isEmpty)
    }

    @Test func everyRefusalAtOnce() {
        let reasons = refusal { c, p in
            p.attributes[1].type = .string
            c.attributes[1].isOptional = false
            p.attributes.append(Attribute(name: "ward", type: .string, isOptional: false))
        }
        #expect(reasons.count == 3)
    }

    @Test func twoRenamesFromV1ToV3() throws {
        let v1 = model([Entity(name: "Place", attributes: [Attribute(name: "district", type: .string)])])
        let v3 = model([
            Entity(
                name: "Site", attributes: [Attribute(name: "zone", type: .string, renamingIdentifier: "district")],
                renamingIdentifier: "Place")
        ])
        let v2 = model([
            Entity(
                name: "Locality", attributes: [Attribute(name: "area", type: .string, renamingIdentifier: "district")],
                renamingIdentifier: "Place")
        ])
        #expect(
            kinds(try MappingInference.infer(from: v1, to: v3, configuration: "Seed")) == [
                "renameEntity Site", "renameAttribute Site.zone",
            ])
        let v2tov3 = try MappingInference.infer(from: v2, to: v3, configuration: "Seed")
        #expect(v2tov3.changes.map(\.oldName) == ["Locality", "area"])
    }

    @Test func sampleSchemasV1ToV2() throws {
        let versions = try ModelLoader.loadAllVersions(sampleSchema("PostCodesModel.xcdatamodeld"))
        let storeModel = try versions[0].restricted(to: "PostCodesConf")
        let plan = try MappingInference.infer(from: storeModel, to: versions[1], configuration: "PostCodesConf")
        #expect(kinds(plan) == ["renameAttribute Postcode.area", "addAttribute Postcode.ward"])
        #expect(
            try MappingInference.infer(
                from: try versions[1].restricted(to: "PostCodesConf"), to: versions[1], configuration: "PostCodesConf"
            ).isEmpty)
    }
}
