import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// A county and its postcodes, with an attribute of every type a record decodes.
private let gazetteerJSON = """
    {"name": "Gazetteer", "entities": [
      {"name": "County",
       "attributes": [{"name": "code", "type": "String", "optional": false}, {"name": "name", "type": "String"}],
       "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "county", "toMany": true}]},
      {"name": "Postcode",
       "attributes": [{"name": "postcode", "type": "String", "optional": false},
                      {"name": "latitude", "type": "Double"},
                      {"name": "population", "type": "Integer 32", "optional": false, "default": "0"},
                      {"name": "active", "type": "Boolean", "optional": false, "default": "YES"},
                      {"name": "surveyed", "type": "Date"},
                      {"name": "uuid", "type": "UUID"},
                      {"name": "website", "type": "URI"},
                      {"name": "area", "type": "Decimal"},
                      {"name": "kind", "type": "String"},
                      {"name": "shape", "type": "Binary"}],
       "relationships": [{"name": "county", "destination": "County", "inverse": "postcodes"}]}
    ]}
    """

private struct Postcode: Codable, Equatable {
    enum Kind: String, Codable { case urban, rural }
    var postcode: String
    var latitude: Double?
    var population: Int
    var active: Bool
    var surveyed: Date?
    var uuid: UUID?
    var website: URL?
    var area: Decimal?
    var kind: Kind?
    var shape: Data?
    var county: ObjectID?
}

private struct County: Decodable, Equatable {
    var code: String
    var name: String?
    var postcodes: [ObjectID]
}

/// A record named otherwise than its entity, with its own ID and its county as a nested record.
private struct Place: Decodable, EntityRecord {
    static let entityName = "Postcode"
    struct Area: Decodable { var code: String }
    var objectID: ObjectID
    var postcode: String
    var county: Area?
}

@Suite("Typed records: Decodable fetches, Encodable inserts")
struct RecordTests {
    private let directory = TemporaryDirectory()

    private func context() throws -> ObjectContext {
        let model = try ModelLoader.load(json: Data(gazetteerJSON.utf8), source: ModelSource(file: "gazetteer.json"))
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.url("gazetteer.sqlite")))
        return ObjectContext(coordinator: coordinator)
    }

    private let canterbury = Postcode(
        postcode: "CT1 1AA", latitude: 51.28, population: 1200, active: true, surveyed: Date(timeIntervalSince1970: 1_700_000_000),
        uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), website: URL(string: "https://example.com/ct1?a=1"),
        area: Decimal(string: "12.345"), kind: .urban, shape: Data([1, 2, 3]))

    /// Kent with two postcodes inserted as records, saved, and read back in a new context.
    private func kent() throws -> (ObjectContext, ObjectID) {
        let writer = try context()
        let county = try writer.insert(entity: "County")
        county["code"] = "KEN"
        county["name"] = "Kent"
        try writer.save()
        var first = canterbury
        first.county = county.objectID
        try writer.insert(first)
        try writer.insert(Postcode(postcode: "TN25 5AA", population: 40, active: false, county: county.objectID))
        try writer.save()
        return (ObjectContext(coordinator: writer.coordinator), county.objectID)
    }

    @Test func encodedRecordsSaveAndDecodeBackWithTheirSwiftTypes() throws {
        let (reader, kentID) = try kent()
        let postcodes = try reader.fetch(
            Postcode.self, where: FetchPredicate("county.code == %@", "KEN"), sortedBy: [FetchSortDescriptor("postcode", ascending: false)])
        var expected = canterbury
        expected.county = kentID
        #expect(postcodes.map(\.postcode) == ["TN25 5AA", "CT1 1AA"])
        #expect(postcodes.last == expected, "dates, UUIDs, URLs, decimals, data, enums and the county's ID come back as inserted")
        #expect(postcodes.first?.latitude == nil && postcodes.first?.active == false)

        // Stored as the by-name API stores them.
        let object = try #require(
            try reader.fetch(FetchRequest(entity: "Postcode", predicate: FetchPredicate("postcode == 'CT1 1AA'"))).first)
        #expect(object["surveyed"] == .real(1_700_000_000) && object["area"] == .text("12.345") && object["kind"] == .text("urban"))
        #expect(
            object["uuid"] == .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F") && object["website"] == .text("https://example.com/ct1?a=1"))

        let county = try #require(try reader.fetch(County.self).first)
        let postcodeIDs = try reader.fetch(FetchRequest(entity: "Postcode")).map(\.objectID)
        #expect(
            county.code == "KEN" && Set(county.postcodes) == Set(postcodeIDs) && county.postcodes.count == 2,
            "a to-many relationship decodes as the destinations' IDs")
    }

    @Test func aRecordNamesItsEntityAndDecodesItsOwnIDAndANestedRecord() throws {
        let (reader, _) = try kent()
        let places = try reader.fetch(Place.self, where: FetchPredicate("population > %d", 100))
        let place = try #require(places.first)
        #expect(places.count == 1 && place.postcode == "CT1 1AA" && place.county?.code == "KEN")
        #expect(try reader.object(with: place.objectID).string("postcode") == "CT1 1AA")
        let byParameter = try reader.fetch(County.self, entity: "County")
        #expect(byParameter.count == 1)
    }

    @Test func aPropertyTheEntityDoesNotHaveIsAnErrorNamingTheEntityAndItsProperties() throws {
        struct Misspelt: Decodable {
            var postcode: String
            var cty: String?
        }
        let (reader, _) = try kent()
        let error = try #require(throws: ContextError.self) { try reader.fetch(Misspelt.self, entity: "Postcode") }
        #expect(error.kind == .unknownName)
        #expect(
            error.message
                == "decoding cty: Postcode has no property \"cty\"; its properties are active, area, county, kind, latitude, population, postcode, shape, surveyed, uuid, website. Rename the record's property, or leave it out with CodingKeys"
        )

        struct Note: Encodable {
            var postcode = "X1"
            var colour = "red"
        }
        let inserted = try #require(throws: ContextError.self) { try reader.insert(Note(), entity: "Postcode") }
        #expect(inserted.message.hasPrefix("encoding colour: Postcode has no property \"colour\""))
        #expect(!reader.hasChanges, "a record that fails to encode leaves no half-made object behind")

        let unknownEntity = try #require(throws: ContextError.self) { try reader.fetch(Misspelt.self) }
        #expect(unknownEntity.message.contains("no entity \"Misspelt\""))
    }

    @Test func aValueOfAnotherTypeOrAMissingValueIsADecodingErrorNamingTheAttribute() throws {
        struct Numbered: Decodable { var postcode: Int }
        struct Required: Decodable {
            var postcode: String
            var latitude: Double
        }
        let (reader, _) = try kent()
        #expect {
            try reader.fetch(Numbered.self, entity: "Postcode")
        } throws: { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return false }
            return context.debugDescription.contains("Postcode.postcode (String) cannot be decoded as Int")
        }
        #expect {
            try reader.fetch(Required.self, entity: "Postcode", where: FetchPredicate("postcode == 'TN25 5AA'"))
        } throws: { error in
            guard case DecodingError.valueNotFound(_, let context) = error else { return false }
            return context.debugDescription.contains("Postcode.latitude has no value")
        }
    }

    @Test func anObjectOfTheContextWinsWithItsUnsavedChangesAndOneDeletedHereIsLeftOut() throws {
        let (reader, _) = try kent()
        let objects = try reader.fetch(FetchRequest(entity: "Postcode", sortDescriptors: [FetchSortDescriptor("postcode")]))
        objects[0]["latitude"] = 1.5
        reader.delete(objects[1])
        let postcodes = try reader.fetch(Postcode.self, sortedBy: [FetchSortDescriptor("postcode")])
        #expect(postcodes.map(\.postcode) == ["CT1 1AA"], "TN25 5AA is deleted in this context, as fetch(_:) leaves it out")
        #expect(postcodes.first?.latitude == 1.5, "the unsaved change, not the stored value")

        // Another context holds no objects: the stored values, decoded straight from the rows.
        let other = ObjectContext(coordinator: reader.coordinator)
        let stored = try other.fetch(Postcode.self, sortedBy: [FetchSortDescriptor("postcode")])
        #expect(stored.map(\.postcode) == ["CT1 1AA", "TN25 5AA"] && stored.first?.latitude == 51.28)
        #expect(!other.hasChanges)
        // Objects fetched afterwards are read from the store as before.
        #expect(
            try other.fetch(FetchRequest(entity: "Postcode", predicate: FetchPredicate("postcode == 'CT1 1AA'"))).first?.double("latitude")
                == 51.28)
    }

    @Test func updateFromARecordChangesOnlyItsPropertiesAndValuesAreCheckedAtSave() throws {
        struct Rename: Encodable {
            var objectID: ObjectID
            var postcode: String
            var population: Int
        }
        let (reader, _) = try kent()
        let place = try #require(try reader.fetch(Place.self, where: FetchPredicate("postcode == 'CT1 1AA'")).first)
        let object = try reader.object(with: place.objectID)
        try object.update(from: Rename(objectID: place.objectID, postcode: "CT1 1AB", population: 5))
        #expect(object.changedValues == ["postcode": "CT1 1AB", "population": 5])
        try reader.save()
        #expect(try reader.fetch(Postcode.self, where: FetchPredicate("postcode == 'CT1 1AB'")).first?.latitude == 51.28)

        struct Huge: Encodable {
            var postcode = "ZZ1"
            var population = Int64.max
        }
        try reader.insert(Huge(), entity: "Postcode")
        let error = try #require(throws: ContextError.self) { try reader.save() }
        #expect(error.problems.contains { $0.contains("Postcode.population") && $0.contains("does not fit Integer 32") })
    }
}
