import Foundation
import SeedModel
import SeedTestSupport
import Testing

/// Runs the built `seedbuild` binary and captures what it prints and its exit status.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

func runSeedbuild(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> CommandResult {
    let process = Process()
    process.executableURL = seedbuildBinary
    process.arguments = arguments
    process.currentDirectoryURL = directory ?? repositoryRoot
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

/// A copy of the sample project (seedbuild.json, seeds/, schemas/) in a fresh folder, removed afterwards.
final class SampleProject {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for item in ["seedbuild.json", "seeds", "schemas"] {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(item), to: url.appendingPathComponent(item))
        }
    }

    deinit {
        if let files = FileManager.default.enumerator(atPath: url.path) {
            for case let file as String in files {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(file).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }

    /// `big/postcodes.csv` with `rows` generated postcodes in key order, and the sample's counties beside it.
    func writeBigInput(rows: Int) throws {
        var csv = "postcode,county_code,latitude\n"
        for index in 0..<rows { csv += "P\(1_000_000 + index),E10000016,51.\(index % 1000)\n" }
        write("big/postcodes.csv", csv)
        try FileManager.default.copyItem(atPath: path("seeds/counties.csv"), toPath: path("big/counties.csv"))
    }

    /// Removes the first postcode row left in `seeds/postcodes.csv`, so each night changes the data.
    func removeFirstPostcode() throws {
        let file = path("seeds/postcodes.csv")
        var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines.remove(at: 1)
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
    }

    func write(_ relative: String, _ text: String) {
        let file = url.appendingPathComponent(relative)
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(text.utf8).write(to: file)
    }
}

@Suite("seedbuild on the command line")
struct CommandLineTests {
    @Test func mainJobBuildsTheSampleStore() throws {
        let project = try SampleProject()
        let result = try runSeedbuild(["seeds/postcodes.csv"], in: project.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("built build/seed/postcodes.sqlite: County 12, Postcode 311 rows"))
        #expect(result.stdout.contains("compressed build/seed/postcodes.sqlite.gz"))
        #expect(result.stderr.isEmpty, "no progress or warnings when stderr is not a terminal: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: project.path("build/seed/postcodes.sqlite")))
    }

    @Test func buildPrintsJSONSummary() throws {
        let project = try SampleProject()
        let result = try runSeedbuild(["build", "seeds/postcodes.csv", "--json", "--out", "elsewhere"], in: project.url)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["store"] as? String == "elsewhere/postcodes.sqlite")
        #expect(object["rowCounts"] as? [String: Int] == ["County": 12, "Postcode": 311])
        #expect(object["rejected"] as? Int == 0)
        let sources = try #require(object["sources"] as? [[String: Any]])
        #expect(sources.map { $0["file"] as? String } == ["counties.csv", "postcodes.csv"])
        #expect(sources.allSatisfy { ($0["sha256"] as? String)?.count == 64 })
        let artifact = try #require(object["artifact"] as? [String: Any])
        #expect(artifact["path"] as? String == "elsewhere/postcodes.sqlite.gz")
        #expect(object["manifest"] as? String == "elsewhere/manifest.json")

        let storeOnly = try runSeedbuild(["build", "seeds/postcodes.csv", "--json", "--out", "bare", "--no-compress"], in: project.url)
        #expect(storeOnly.status == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: project.path("bare")).filter { !$0.hasPrefix(".") } == ["postcodes.sqlite"],
            "and the folder's lock file")
    }

    @Test func badDataExits65NamingFileLineAndField() throws {
        let project = try SampleProject()
        project.write("bad/postcodes.csv", "postcode,county_code,latitude\nCT1 1AA,E10000016,north\n")
        try FileManager.default.copyItem(atPath: project.path("seeds/counties.csv"), toPath: project.path("bad/counties.csv"))
        let result = try runSeedbuild(["build", "bad/postcodes.csv"], in: project.url)
        #expect(result.status == 65)
        #expect(
            result.stderr.contains("rejected: bad/postcodes.csv:2:3 (field \"latitude\"): Postcode.latitude: \"north\" is not a number"))
        #expect(result.stderr.contains("1 rows rejected, more than --max-rejects 0"))
        #expect(!FileManager.default.fileExists(atPath: project.path("build/seed/postcodes.sqlite")))
        #expect(FileManager.default.fileExists(atPath: project.path("build/seed/postcodes.rejects.csv")))

        let allowed = try runSeedbuild(["build", "bad/postcodes.csv", "--max-rejects", "1"], in: project.url)
        #expect(allowed.status == 0)
        #expect(allowed.stdout.contains("1 rejected, see build/seed/postcodes.rejects.csv"))
    }

    @Test func malformedCSVAndMissingInputs() throws {
        let project = try SampleProject()
        project.write("bad/postcodes.csv", "postcode,county_code\n\"CT1 1AA,E10000016\n")
        try FileManager.default.copyItem(atPath: project.path("seeds/counties.csv"), toPath: project.path("bad/counties.csv"))
        let malformed = try runSeedbuild(["build", "bad/postcodes.csv"], in: project.url)
        #expect(malformed.status == 65)
        #expect(malformed.stderr.contains("bad/postcodes.csv:2:1 (field \"postcode\"): a quoted field starts here and never ends"))

        project.write("lonely/postcodes.csv", "postcode\nCT1 1AA\n")
        let missing = try runSeedbuild(["build", "lonely/postcodes.csv"], in: project.url)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no CSV for entity County; tried lonely/county.csv, lonely/counties.csv"))

        let noModel = try runSeedbuild(["build", "seeds/postcodes.csv", "--model", "schemas/Nope.xcdatamodeld"], in: project.url)
        #expect(noModel.status == 66)
        let usage = try runSeedbuild(["build", "--max-rejects", "-1", "seeds/postcodes.csv"], in: project.url)
        #expect(usage.status == 64)
    }

    @Test func modelShowMergesTheSampleModels() throws {
        let result = try runSeedbuild(["model", "show", "schemas/PostCodesModel.xcdatamodeld", "schemas/UserModel.xcdatamodeld"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("model PostCodesModel+UserModel"))
        for fragment in [
            "entity County [PostCodesConf]", "entity Postcode [PostCodesConf]", "entity Rating [UserConf]",
            "area: String, optional, renamed from district", "ratings: fetched Rating where postcode == $FETCH_SOURCE.postcode",
            "county: to-one County, inverse postcodes", "PostCodesConf: County, Postcode", "UserConf: Rating",
        ] {
            #expect(result.stdout.contains(fragment), "\(fragment)")
        }
        #expect(result.stderr.isEmpty, "merged, the fetched property's target exists: \(result.stderr)")
    }

    @Test func modelHashesAsJSON() throws {
        let result = try runSeedbuild([
            "model", "hashes", "schemas/PostCodesModel.xcdatamodeld", "--configuration", "PostCodesConf", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        func entities(_ stdout: String) throws -> [String: [String: String]] {
            let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
            return try #require(object?["entities"] as? [String: [String: String]])
        }
        let hashes = try entities(result.stdout)
        #expect(hashes.keys.sorted() == ["County", "Postcode"])
        #expect(hashes.values.allSatisfy { $0["hex"]?.count == 64 && $0["hex"]!.allSatisfy { "0123456789abcdef".contains($0) } })
        #expect(hashes.values.allSatisfy { Data(base64Encoded: $0["base64"] ?? "")?.hexString == $0["hex"] })
        let whole = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((whole["versionChecksum"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 32)
        let v1 = try runSeedbuild(["model", "hashes", "schemas/PostCodesModel.xcdatamodeld/PostCodesModel.xcdatamodel", "--json"])
        let v1Hashes = try entities(v1.stdout)
        #expect(v1Hashes["County"] == hashes["County"] && v1Hashes["Postcode"] != hashes["Postcode"])
        let text = try runSeedbuild(["model", "hashes", "schemas/PostCodesModel.xcdatamodeld", "--base64"])
        #expect(text.stdout.contains("\(hashes["County"]!["base64"]!)  County"))
    }

    /// An app's compiled `.momd`: `model hashes` prints exactly the hashes in its `VersionInfo.plist`.
    @Test func modelHashesOfACompiledMomdAreApples() throws {
        let momd = OracleFixtures.url("drewying__Nintendoish/GameLibrary.momd")
        let result = try runSeedbuild(["model", "hashes", momd.path])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist"))
        let plist = try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any]
        let apple = try #require((plist?["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])?["DataStore"])
        let expected = apple.keys.sorted().map { "\(apple[$0]!.map { String(format: "%02x", $0) }.joined())  \($0)" }
        #expect(result.stdout.split(separator: "\n").map(String.init) == expected)
        let show = try runSeedbuild(["model", "show", momd.appendingPathComponent("DataStore.mom").path])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("rom: to-one Rom, inverse game"), "\(show.stdout)")
    }

    @Test func invalidAndMissingModelsExit65And66() throws {
        let project = try SampleProject()
        project.write(
            "Broken.xcdatamodel/contents",
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Ghost"/></entity>
            </model>
            """)
        let invalid = try runSeedbuild(["model", "show", "Broken.xcdatamodel"], in: project.url)
        #expect(invalid.status == 65)
        #expect(invalid.stderr.contains("Broken.xcdatamodel: A.b: error: the relationship names destination entity \"Ghost\""))
        let missing = try runSeedbuild(["model", "show", "Nope.xcdatamodeld"], in: project.url)
        #expect(missing.status == 66)
    }
}
