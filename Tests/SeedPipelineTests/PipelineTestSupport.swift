import Crypto
import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore

/// A folder of its own for one test, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("seedpipeline-tests-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Built stores are read-only; make them removable first.
        if let files = FileManager.default.enumerator(atPath: url.path) {
            for case let file as String in files {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(file).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    var path: String { url.path }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let file = url.appendingPathComponent(name)
        try! FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(text.utf8).write(to: file)
        return file.path
    }
}

let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func repositoryPath(_ relative: String) -> String {
    repositoryRoot.appendingPathComponent(relative).path
}

/// A small postcode model in the JSON form: County (keyed by code, referenced) and Postcode (WITHOUT ROWID).
let testModelJSON = """
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
func writeTestInputs(
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
func buildTestStore(
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
func packagedRelease(
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

/// Runs a query against a built store opened read-only, in the plain layout's tables: a store in
/// Core Data's layout (the builder's default) is read through its plain conversion in the runtime's
/// forms, so one query checks what either layout holds.
func query<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
    guard try StoreFile.layout(at: path) == .coreData else { return try StoreFile.openReadOnly(path).read(body) }
    let plain = FileManager.default.temporaryDirectory.appendingPathComponent("plain-view-\(UUID().uuidString).sqlite").path
    defer { try? FileManager.default.removeItem(atPath: plain) }
    try LayoutConversion.convert(path, to: .plain, output: plain, keepingCoreDataLayout: false)
    let queue = try StoreFile.openReadOnly(plain)
    defer { try? queue.close() }
    return try queue.read(body)
}

/// The content digest of a store's tables as they are, in its own layout, read back.
func storedDigest(_ path: String) throws -> String {
    try StoreFile.openReadOnly(path).read { db in try ContentDigest.compute(db, schema: StoreFile.embeddedSchema(db, path: path)) }
}

/// The files an install left in `folder`, sorted, but for its hidden `.<dataset>.lock`, which stays.
func installedFiles(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".lock") }.sorted()
}

/// Rewrites a channel's manifest for `version` and points latest.json at the new bytes, as a hostile
/// server (or a test of what the installer does with a field) would.
func rewriteManifest(in channel: String, version: Int64, _ change: (inout [String: JSONValue], inout ReleasePointer) -> Void) throws {
    let file = channel + "/manifests/\(version).json"
    var manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: file)), path: file)
    var pointer = try ReleasePointer(data: try Data(contentsOf: URL(fileURLWithPath: channel + "/latest.json")), source: "p")
    change(&manifest.values, &pointer)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
    try manifest.fileData.write(to: URL(fileURLWithPath: file))
    pointer.manifestSHA256 = Data(SHA256.hash(data: manifest.fileData)).hexString
    try pointer.data.write(to: URL(fileURLWithPath: channel + "/latest.json"))
}
