import Foundation
import Testing

/// `seedbuild run --json`: CI sees every stage, the verify verdicts and what publishing did.
@Suite("seedbuild run --json")
struct RunJSONTests {
    private func object(_ result: CommandResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    private func stages(_ object: [String: Any]) -> [String] {
        (object["stages"] as? [[String: Any]] ?? []).map { "\($0["stage"] ?? ""):\($0["status"] ?? "")" }
    }

    @Test func everyStageAndThePublishOutcomeWithItsURLs() throws {
        let project = try SampleProject()
        let environment = ["SOURCE_DATE_EPOCH": "1700000000"]
        let first = try object(try runSeedbuild(["seeds/postcodes.csv", "--json"], in: project.url, environment: environment))
        #expect(first["passed"] as? Bool == true)
        #expect(stages(first) == ["build:ok", "compress:ok", "verify:passed", "publish:published"])
        let build = try #require(first["build"] as? [String: Any])
        #expect(build["rowCounts"] as? [String: Int] == ["County": 12, "Postcode": 311])
        let verify = try #require(first["verify"] as? [String: Any])
        #expect(verify["result"] as? String == "compatible")
        let models = try #require(verify["models"] as? [[String: Any]])
        #expect(models.map { "\($0["version"] ?? ""):\($0["result"] ?? "")" } == ["PostCodesModel 2:compatible"])
        let publish = try #require(first["publish"] as? [String: Any])
        #expect(publish["outcome"] as? String == "published")
        #expect(publish["pointerURL"] as? String == "dist/postcodes/2/latest.json")
        #expect(publish["manifestURL"] as? String == "dist/postcodes/2/manifests/202311142213.json")
        let artifactURL = try #require(publish["artifactURL"] as? String)
        #expect(FileManager.default.fileExists(atPath: project.path(artifactURL)))
        #expect(publish["expires"] is String)

        let again = try object(try runSeedbuild(["seeds/postcodes.csv", "--json"], in: project.url, environment: environment))
        #expect(stages(again) == ["build:ok", "compress:ok", "verify:passed", "publish:already published"])
        #expect((again["publish"] as? [String: Any])?["manifestURL"] as? String == "dist/postcodes/2/manifests/202311142213.json")

        let skipped = try object(try runSeedbuild(["seeds/postcodes.csv", "--json", "--no-publish"], in: project.url))
        #expect(stages(skipped) == ["build:ok", "compress:ok", "verify:passed", "publish:skipped"])

        // Every version of the bundle: the current one opens it as it is, version 1 through a migration.
        let all = try runSeedbuild(["seeds/postcodes.csv", "--json", "--no-publish", "--all-versions"], in: project.url)
        let matrix = try object(all)
        let verdicts = ((matrix["verify"] as? [String: Any])?["models"] as? [[String: Any]] ?? []).map {
            "\($0["version"] ?? ""):\($0["result"] ?? "")"
        }
        #expect(verdicts == ["PostCodesModel 2:compatible", "PostCodesModel:lightweight"], "\(all.stdout) \(all.stderr)")
    }

    /// Every command with --json prints one JSON object on stdout when it fails too; verify's own
    /// failing report is that object (not followed by a second one).
    @Test func everyCommandsJSONFailureIsOneObject() throws {
        let project = try SampleProject()
        project.write("notes.txt", "not a store")
        for arguments in [
            ["build", "seeds/nothere.csv", "--json"],
            ["compress", "notes.txt", "--json"],
            ["verify", "seeds/nothere.sqlite", "--json"],
            ["inspect", "notes.txt", "--json"],
            ["migrate", "notes.txt", "--format", "plain", "--out", "x.sqlite", "--json"],
        ] {
            let result = try runSeedbuild(arguments, in: project.url)
            #expect(result.status != 0, "\(arguments)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(arguments): \(result.stdout)")
            #expect(object["outcome"] as? String == "failed", "\(arguments)")
            #expect(object["exitCode"] as? Int == Int(result.status), "\(arguments)")
            #expect(result.stderr.contains("error: "), "\(arguments): \(result.stderr)")
        }
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url).status == 0)
        project.write(
            "build/seed/manifest.json",
            try String(contentsOfFile: project.path("build/seed/manifest.json"), encoding: .utf8)
                .replacingOccurrences(of: "\"County\" : 12", with: "\"County\" : 13"))
        let verify = try runSeedbuild(["verify", "build/seed/manifest.json", "--json"], in: project.url)
        #expect(verify.status == 70)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any], "one object: \(verify.stdout)")
        #expect(report["passed"] as? Bool == false)
    }

    @Test func aFailingStageIsReportedWithItsExitStatus() throws {
        let project = try SampleProject()
        project.write("seeds/postcodes.csv", "postcode,county_code,latitude\nCT1 1AA,E10000016,north\n")
        let result = try runSeedbuild(["seeds/postcodes.csv", "--json"], in: project.url)
        #expect(result.status == 65)
        let failed = try object(result)
        #expect(failed["passed"] as? Bool == false)
        #expect((failed["stages"] as? [[String: Any]])?.first?["exitCode"] as? Int == 65)
        #expect(stages(failed) == ["build:failed"])
        #expect(result.stderr.contains("not a number"))
    }
}
