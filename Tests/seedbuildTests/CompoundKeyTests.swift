import Foundation
import Testing

/// To-one relationships resolved through any uniqueness constraint of their destination.
@Suite("Keys: compound, or none")
struct CompoundKeyTests {
    /// US counties repeat their names across states: (name, state) is the key. Zone has no key at
    /// all, and nothing feeds Place.zone.
    private let model = """
        {"name": "Places", "versionIdentifiers": ["1"],
         "entities": [
           {"name": "County",
            "attributes": [{"name": "name", "type": "String", "optional": false},
                           {"name": "state", "type": "String", "optional": false},
                           {"name": "fips", "type": "String"}],
            "relationships": [{"name": "places", "destination": "Place", "inverse": "county", "toMany": true}],
            "uniquenessConstraints": [["name", "state"]]},
           {"name": "Zone",
            "attributes": [{"name": "label", "type": "String"}],
            "relationships": [{"name": "places", "destination": "Place", "inverse": "zone", "toMany": true}]},
           {"name": "Place",
            "attributes": [{"name": "name", "type": "String", "optional": false}],
            "relationships": [{"name": "county", "destination": "County", "inverse": "places"},
                              {"name": "zone", "destination": "Zone", "inverse": "places"}],
            "uniquenessConstraints": [["name"]]}]}
        """

    private func project(places: String) throws -> SampleProject {
        let project = try SampleProject()
        project.write("us/model.json", model)
        project.write("us/counties.csv", "name,state,fips\nWashington County,OH,39167\nWashington County,PA,42125\nAdams County,OH,39001\n")
        project.write("us/zones.csv", "label\nnorth\n")
        project.write("us/places.csv", places)
        return project
    }

    private func build(_ project: SampleProject) throws -> CommandResult {
        try runSeedbuild(["build", "us/places.csv", "--model", "us/model.json", "--dataset", "places", "--out", "us/out"], in: project.url)
    }

    @Test func aCompoundKeyResolvesTheRightCounty() throws {
        let project = try project(
            places: "name,county_name,county_state\nMarietta,Washington County,OH\nWashington,Washington County,PA\nNowhere,,\n")
        let result = try build(project)
        #expect(result.status == 0, "\(result.stderr)")
        let query = try runSeedbuild(
            [
                "query", "--store", "us/out/places.sqlite:ro", "--model", "us/model.json", "Place", "--where", "county.state == 'PA'",
                "--json",
            ],
            in: project.url)
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout.contains("\"Washington\"") && !query.stdout.contains("Marietta"), "\(query.stdout)")
        #expect(try runSeedbuild(["verify", "us/out/places.sqlite", "--model", "us/model.json"], in: project.url).status == 0)
    }

    @Test func keyValuesNotFoundAreNamed() throws {
        let project = try project(places: "name,county_name,county_state\nMarietta,Washington County,WV\nHalf,Adams County,\n")
        let result = try build(project)
        #expect(result.status == 65)
        #expect(result.stderr.contains("Place.county: no County with (name, state) \"Washington County, WV\""), "\(result.stderr)")
        #expect(result.stderr.contains("needs every part, and county_state is empty"), "\(result.stderr)")
    }

    @Test func aRequiredRelationshipNamesTheColumnsItNeeds() throws {
        let required = model.replacingOccurrences(
            of: #"{"name": "county", "destination": "County", "inverse": "places"}"#,
            with: #"{"name": "county", "destination": "County", "inverse": "places", "optional": false}"#)
        let project = try project(places: "name\nMarietta\n")
        project.write("us/model.json", required)
        let result = try build(project)
        #expect(result.status == 65)
        #expect(
            result.stderr.contains("no column for required relationship Place.county; add \"county_name\" and \"county_state\""),
            "\(result.stderr)")
    }
}
