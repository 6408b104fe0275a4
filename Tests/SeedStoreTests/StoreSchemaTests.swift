import Foundation
import SeedModel
import SeedStore
import Testing

@Suite("Store schema from a model")
struct StoreSchemaTests {
    private func schema(_ entities: [Entity], configuration: String = "Default") throws -> StoreSchema {
        try StoreSchema(model: Model(name: "M", entities: entities), configuration: configuration)
    }

    private let postcode = Entity(
        name: "Postcode",
        attributes: [Attribute(name: "postcode", type: .string, isOptional: false), Attribute(name: "latitude", type: .double)],
        relationships: [Relationship(name: "county", destination: "County", inverse: "postcodes")],
        uniquenessConstraints: [["postcode"]],
        indexes: [FetchIndex(name: "byPostcode", elements: [.init(property: "postcode")])])
    private let county = Entity(
        name: "County",
        attributes: [
            Attribute(name: "code", type: .string, isOptional: false),
            Attribute(name: "rank", type: .integer16, isOptional: false, defaultValue: "3"),
        ],
        relationships: [Relationship(name: "postcodes", destination: "Postcode", inverse: "county", isToMany: true, deleteRule: .cascade)],
        uniquenessConstraints: [["code"]])

    @Test func keyedEntityNobodyReferencesIsWithoutRowid() throws {
        let layout = try schema([postcode, county])
        #expect(layout.tables.map(\.name) == ["County", "Postcode"], "parents load first")
        let postcodes = try #require(layout.table(for: "Postcode"))
        #expect(postcodes.primaryKey == .attribute("postcode"))
        #expect(
            postcodes.createStatement == """
                CREATE TABLE "Postcode" (
                  "postcode" TEXT NOT NULL PRIMARY KEY,
                  "latitude" REAL,
                  "county" INTEGER,
                  FOREIGN KEY ("county") REFERENCES "County" ("Z_PK")
                ) WITHOUT ROWID
                """)
        #expect(
            postcodes.indexStatements == [#"CREATE INDEX "Postcode_county_index" ON "Postcode" ("county")"#],
            "the fetch index on the key duplicates the primary key")
        let counties = try #require(layout.table(for: "County"))
        #expect(counties.primaryKey == .rowid)
        #expect(
            counties.createStatement == """
                CREATE TABLE "County" (
                  "Z_PK" INTEGER PRIMARY KEY,
                  "code" TEXT NOT NULL,
                  "rank" INTEGER NOT NULL DEFAULT 3
                )
                """)
        #expect(counties.indexStatements == [#"CREATE UNIQUE INDEX "County_unique_code" ON "County" ("code")"#])
    }

    @Test func manyToManyAndOrderedRelationshipsUseJoinTables() throws {
        let tag = Entity(
            name: "Tag", attributes: [Attribute(name: "label", type: .string)],
            relationships: [Relationship(name: "items", destination: "Item", inverse: "tags", isToMany: true)])
        let item = Entity(
            name: "Item", attributes: [Attribute(name: "title", type: .string)],
            relationships: [
                Relationship(name: "tags", destination: "Tag", inverse: "items", isToMany: true),
                Relationship(name: "parts", destination: "Part", inverse: "item", isToMany: true, isOrdered: true),
            ])
        let part = Entity(
            name: "Part", attributes: [Attribute(name: "n", type: .integer32)],
            relationships: [Relationship(name: "item", destination: "Item", inverse: "parts")])
        let layout = try schema([tag, item, part])
        #expect(layout.joinTables.map(\.name) == ["Item_parts", "Item_tags"])
        let parts = try #require(layout.joinTables.first)
        #expect(parts.isOrdered)
        #expect(parts.createStatement.contains("\"position\" INTEGER NOT NULL DEFAULT 0"))
        #expect(layout.table(for: "Part")?.foreignKeys.isEmpty == true, "the ordered pair is stored once, in the join table")
        #expect(layout.tables.allSatisfy { $0.primaryKey == .rowid })
    }

    @Test func configurationRestrictsTables() throws {
        let rating = Entity(name: "Rating", attributes: [Attribute(name: "postcode", type: .string)])
        let model = Model(
            name: "M", entities: [postcode, county, rating],
            configurations: [
                Configuration(name: "Seed", entities: ["Postcode", "County"]), Configuration(name: "User", entities: ["Rating"]),
            ])
        #expect(try StoreSchema(model: model, configuration: "User").tables.map(\.name) == ["Rating"])
        #expect(throws: ModelError.self) { try StoreSchema(model: model, configuration: "Nope") }
    }

    @Test func storageTypes() {
        #expect(
            AttributeType.allCases.map(EntityTable.storageType(of:)) == [
                "INTEGER", "INTEGER", "INTEGER", "TEXT", "REAL", "REAL", "TEXT", "INTEGER", "REAL", "BLOB", "TEXT", "TEXT", "BLOB",
                "BLOB", "BLOB", "BLOB",
            ])
    }
}
