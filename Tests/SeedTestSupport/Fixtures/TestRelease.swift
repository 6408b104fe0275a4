import Foundation
import SeedInstall
import SeedPipeline

/// A small postcode model in the JSON form: County (keyed by code, referenced) and Postcode (WITHOUT ROWID).
public let testModelJSON = """
    {
      "name": "TestPostcodes", "versionIdentifiers": ["1"],
      "configurations": [{"name": "Seed", "entities": ["County", "Postcode"]}],
      "entities": [
        {"name": "County",
         "attributes": [{"name": "code", "type": "String", "optional": false},
                        {"name": "name", "type": "String", "optional": false},
                        {"name": "population", "type": "Integer 32"}],
         "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "county", "toMany": true, "deleteRule": "Cascade"}],
         "uniquenessConstraints": [["code"]]},
        {"name": "Postcode",
         "attributes": [{"name": "postcode", "type": "String", "optional": false},
                        {"name": "latitude", "type": "Double"},
                        {"name": "active", "type": "Boolean", "optional": false, "default": "YES"},
                        {"name": "introduced", "type": "Date"},
                        {"name": "countryCode", "type": "String"}],
         "relationships": [{"name": "county", "destination": "County", "inverse": "postcodes", "deleteRule": "Nullify"}],
         "uniquenessConstraints": [["postcode"]],
         "indexes": [{"name": "byCountry", "elements": [{"property": "countryCode"}]}]}
      ]
    }
    """

/// Writes the test model and a clean pair of CSVs; returns the model path.
@discardableResult
public func writeTestInputs(
    _ directory: TemporaryDirectory,
    postcodes: String = """
    postcode,county_code,latitude,active,introduced,country_code
    CT1 1AA,KEN,51.28,yes,2001-02-03,E92000001
    CT1 1AB,KEN,,no,,E92000001
    EH1 1AA,EDI,55.95,,2020-01-01T10:00:00Z,S92000003

    """,
    counties: String = "code,name,population\r\nKEN,Kent,1500000\r\nEDI,\"Edinburgh, City of\",\r\n"
) -> String {
    directory.write("in/postcodes.csv", postcodes)
    directory.write("in/counties.csv", counties)
    return directory.write("model.json", testModelJSON)
}

/// Builds from the test inputs with the given options.
public func buildTestStore(
    _ directory: TemporaryDirectory, maxRejects: Int = 0, configure: (inout BuildOptions) -> Void = { _ in }
) throws -> BuiltStore {
    var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
    options.model = directory.path("model.json")
    options.outputDirectory = directory.path("out")
    options.maxRejects = maxRejects
    configure(&options)
    var (request, _) = try options.resolve(project: nil)
    request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
    return try SeedBuilder().build(request)
}

/// Builds and packages the test store with a data version into `out-<version>`; returns that folder.
public func packagedRelease(
    _ directory: TemporaryDirectory, version: Int64, postcodes: String? = nil, sign key: SigningKey? = nil
) throws -> String {
    if let postcodes { writeTestInputs(directory, postcodes: postcodes) } else { writeTestInputs(directory) }
    let built = try buildTestStore(directory) {
        $0.dataVersion = version
        $0.outputDirectory = directory.path("out-\(version)")
    }
    var packager = Packager()
    packager.signingKey = key
    _ = try packager.package(built)
    return directory.path("out-\(version)")
}
