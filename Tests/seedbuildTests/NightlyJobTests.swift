import Foundation
import Testing

/// The nightly job as an operator runs it: the built binary, its output, its exit status, what it leaves.
@Suite("The nightly job")
struct NightlyJobTests {
    private let keys = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-keys-\(UUID().uuidString)").path

    private func manifest(_ project: SampleProject) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/manifest.json")))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func unchangedDataRefreshesWhenSignedAndRefusesToDropTheSignature() throws {
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let project = try SampleProject()
        // Reproducible store bytes from the last commit's time; the manifest is fresh anyway.
        let environment = ["SOURCE_DATE_EPOCH": "1700000000"]
        let first = try runSeedbuild(["seeds/postcodes.csv"], in: project.url, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("published data version 202311142213 to dist/postcodes/2/"))
        let written = try manifest(project)
        let formatter = ISO8601DateFormatter()
        let issued = try #require((written["issued"] as? String).flatMap(formatter.date(from:)))
        let expires = try #require((written["expires"] as? String).flatMap(formatter.date(from:)))
        #expect(abs(issued.timeIntervalSinceNow) < 600, "issued when written, not at SOURCE_DATE_EPOCH")
        #expect(expires.timeIntervalSince(issued) == 14 * 86_400)
        #expect(written["created"] as? String == "2023-11-14T22:13:20Z")

        let again = try runSeedbuild(["seeds/postcodes.csv"], in: project.url, environment: environment)
        #expect(again.status == 0)
        #expect(again.stdout.contains("already published: dist/postcodes/2/ has this content (data version 202311142213); expires"))

        #expect(try runSeedbuild(["keygen", "--out", keys]).status == 0)
        // The channel is unsigned: a signing build follows it only when told, once.
        let refused = try runSeedbuild(
            ["seeds/postcodes.csv", "--sign-key", keys + "/seedbuild-signing.key"], in: project.url, environment: environment)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-unsigned-base"), "\(refused.stderr)")
        let signed = try runSeedbuild(
            ["seeds/postcodes.csv", "--sign-key", keys + "/seedbuild-signing.key", "--allow-unsigned-base"], in: project.url,
            environment: environment)
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(
            signed.stdout.contains(
                "refreshed data version 202311142213 at dist/postcodes/2/: the published manifest is unsigned, this build's is signed by key"
            ))
        let fetched = try runSeedbuild(
            ["fetch", "dist/postcodes/2/", "--to", "app", "--trusted-key", keys + "/seedbuild-signing.pub"], in: project.url)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains("installed data version 202311142213"))

        let unsigned = try runSeedbuild(["seeds/postcodes.csv"], in: project.url, environment: environment)
        #expect(unsigned.status == 65)
        #expect(
            unsigned.stderr.contains("build/seed/manifest.json: unsigned, but the release at dist/postcodes/2/latest.json is signed by key")
        )
        #expect(unsigned.stderr.contains("--allow-unsigned"))
        let told = try runSeedbuild(["publish", "--allow-unsigned"], in: project.url)
        #expect(told.status == 0, "\(told.stderr)")
        #expect(told.stdout.contains("refreshed data version 202311142213"))
    }

    @Test func anExpiredManifestIsRefused() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url).status == 0)
        // A manifest written long ago (its expiry rewritten; unsigned, so nothing else notices).
        let path = project.path("build/seed/manifest.json")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expires = try #require(try manifest(project)["expires"] as? String)
        try text.replacingOccurrences(of: expires, with: "2020-01-01T00:00:00Z").write(toFile: path, atomically: true, encoding: .utf8)
        let result = try runSeedbuild(["publish"], in: project.url)
        #expect(result.status == 65)
        #expect(result.stderr.contains("build/seed/manifest.json: expired at 2020-01-01T00:00:00Z; apps would refuse it"))
        #expect(!FileManager.default.fileExists(atPath: project.path("dist")))
    }

    /// A mapping entry that cannot apply fails the build, naming it; an --ignore-column that matches
    /// no file is a warning. Before, each was dropped without a word.
    @Test func mappingEntriesThatCannotApplyAreNotDropped() throws {
        let project = try SampleProject()
        project.write("entity.json", #"{"Postcode": {"latitude": "latitude"}, "Countty": {"x": null}}"#)
        let entity = try runSeedbuild(["build", "seeds/postcodes.csv", "--mapping", "entity.json"], in: project.url)
        #expect(entity.status == 65)
        #expect(
            entity.stderr.contains(
                #"entity.json (field "Countty"): "Countty" is not an entity of configuration PostCodesConf (County, Postcode); did you mean County?"#
            ), "\(entity.stderr)")

        for (name, mapping) in [
            ("renamed.json", #"{"Postcode": {"pcds": "postcode"}}"#), ("skipped.json", #"{"Postcode": {"objectid": null}}"#),
        ] {
            project.write(name, mapping)
            let result = try runSeedbuild(["build", "seeds/postcodes.csv", "--mapping", name], in: project.url)
            let column = mapping.contains("pcds") ? "pcds" : "objectid"
            #expect(result.status == 65, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "seeds/postcodes.csv:1 (field \"\(column)\"): \(name) names column \"\(column)\" for Postcode, but this file has no such column"
                ), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: project.path("build/seed/postcodes.sqlite")))

        let ignored = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--ignore-column", "bogus", "--ignore-column", "ward"], in: project.url)
        #expect(ignored.status == 0, "\(ignored.stderr)")
        #expect(
            ignored.stderr.contains("--ignore-column bogus matched no column of seeds/counties.csv, seeds/postcodes.csv"),
            "\(ignored.stderr)")
        #expect(!ignored.stderr.contains("--ignore-column ward"), "ward is a column of postcodes.csv: \(ignored.stderr)")
    }

    /// A build older than the published release is the build's fault (exit 65), not an I/O error.
    @Test func aRollbackIsRefusedAsBadInput() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv", "--data-version", "5"], in: project.url).status == 0)
        #expect(try runSeedbuild(["publish"], in: project.url).status == 0)
        // Other content (the last postcode left out), under an older data version.
        let csv = try String(contentsOfFile: project.path("seeds/postcodes.csv"), encoding: .utf8)
        project.write("seeds/postcodes.csv", csv.split(separator: "\n").dropLast().joined(separator: "\n") + "\n")
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv", "--data-version", "4"], in: project.url).status == 0)
        let rollback = try runSeedbuild(["publish"], in: project.url)
        #expect(rollback.status == 65)
        #expect(rollback.stderr.contains("data version 4 is not newer than the published 5"), "\(rollback.stderr)")
    }

    @Test func aColumnThatFeedsNothingFailsTheBuild() throws {
        let project = try SampleProject()
        let csv = try String(contentsOfFile: project.path("seeds/postcodes.csv"), encoding: .utf8)
        var lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] += ",lat,lon"
        for index in 1..<lines.count where !lines[index].isEmpty { lines[index] += ",51.1,0.2" }
        project.write("seeds/postcodes.csv", lines.joined(separator: "\n"))
        let result = try runSeedbuild(["seeds/postcodes.csv"], in: project.url)
        #expect(result.status == 65)
        #expect(result.stderr.contains("lat: did you mean latitude?"), "\(result.stderr)")
        #expect(result.stderr.contains("lon: did you mean longitude?"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path("build/seed/postcodes.sqlite")))
        #expect(!FileManager.default.fileExists(atPath: project.path("dist")))

        let skipped = try runSeedbuild(["seeds/postcodes.csv", "--ignore-column", "lat", "--ignore-column", "lon"], in: project.url)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("skipped \"lat\", \"lon\" as told"))
        #expect(skipped.stdout.contains("published data version"))
    }
}
