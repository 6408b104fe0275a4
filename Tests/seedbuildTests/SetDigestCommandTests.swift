import Foundation
import SeedTestSupport
import Testing

/// The set digest a release's manifest signs: the same from docs/store-format.md alone (a short Python
/// implementation in Tests/Fixtures/scripts), in both layouts, and the same whether a night computes
/// it from every row or from its base's and the delta.
@Suite("The set digest")
struct SetDigestCommandTests {
    private func manifestDigest(_ project: SampleProject, _ folder: String = "build/seed") throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: project.path("\(folder)/manifest.json")))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["setDigest"] as? String)
    }

    private func independent(_ store: String) throws -> String {
        let script = repositoryPath("Tests/Fixtures/scripts/set_digest.py")
        let result = try shell("python3 '\(script)' '\(store)'")
        #expect(result.status == 0)
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: ["coredata", "plain"])
    func anIndependentImplementationGivesTheManifestsDigest(layout: String) throws {
        let project = try SampleProject()
        let built = try runSeedbuild(["build", "seeds/postcodes.csv", "--format", layout], in: project.url)
        #expect(built.status == 0, "\(built.stderr)")
        let stated = try manifestDigest(project)
        #expect(stated.hasPrefix("lthash16-1024:"))
        #expect(try independent(project.path("build/seed/postcodes.sqlite")) == stated)
    }

    @Test func aNightFollowingItsBaseUpdatesTheDigestToWhatEveryRowGives() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        let path = project.path("seeds/postcodes.csv")
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines.remove(at: 3)
        lines[5] = Substring(lines[5].replacingOccurrences(of: "Hastings", with: "Rother"))
        lines.insert("ZZ9 9ZZ,E10000011,Hastings,Park,51.0,0.5,2024-01-01", at: lines.count - 1)
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let night = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--json"], in: project.url)
        #expect(night.status == 0, "\(night.stderr)")
        #expect(night.stdout.contains("\"phase\" : \"set digest\""))
        // Night 2's digest came from night 1's and the delta; every row of the store gives the same.
        #expect(try independent(project.path("build/seed/postcodes.sqlite")) == (try manifestDigest(project)))
        let verified = try runSeedbuild(["verify", "build/seed/manifest.json"], in: project.url)
        #expect(verified.status == 0, "\(verified.stdout)")
        #expect(verified.stdout.contains("ok   set digest"))
    }

    @Test func verifyRecomputesTheDigestTheManifestStates() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url).status == 0)
        // An unsigned manifest edited to state another digest (the empty set's): the store's rows say otherwise.
        let file = project.path("build/seed/manifest.json")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let empty = "lthash16-1024:" + Data(count: 2048).base64EncodedString()
        try text.replacingOccurrences(of: try manifestDigest(project), with: empty).write(toFile: file, atomically: true, encoding: .utf8)
        let verified = try runSeedbuild(["verify", "build/seed/manifest.json"], in: project.url)
        #expect(verified.status == 70, "\(verified.stdout)")
        #expect(verified.stdout.contains("FAIL set digest: the store's rows give lthash16-1024:"), "\(verified.stdout)")
    }
}
