import Foundation
import Testing

@Suite("seedbuild verify")
struct VerifyCommandTests {
    private func built() throws -> SampleProject {
        let project = try SampleProject()
        let result = try runSeedbuild(["seeds/postcodes.csv"], in: project.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("verified: compatible under PostCodesModel 2"))
        return project
    }

    private func report(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func manifestArtifactAndStoreVerify() throws {
        let project = try built()
        for file in ["build/seed/manifest.json", "build/seed/postcodes.sqlite.gz", "build/seed/postcodes.sqlite"] {
            let result = try runSeedbuild(["verify", file, "--json"], in: project.url)
            #expect(result.status == 0, "\(file): \(result.stdout) \(result.stderr)")
            let object = try report(result.stdout)
            #expect(object["result"] as? String == "compatible")
            let checks = try #require(object["checks"] as? [[String: Any]])
            #expect(checks.contains { $0["name"] as? String == "quick_check" && $0["passed"] as? Bool == true })
        }
        let manifest = try report(try runSeedbuild(["verify", "build/seed/manifest.json", "--json"], in: project.url).stdout)
        let names = (manifest["checks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        // A seed in Core Data's layout: Core Data's entity numbers and Z_MAX are checked, not a header stamp.
        #expect(
            names.starts(with: [
                "artifact size", "artifact sha256", "inflate", "store size", "store sha256", "store beside", "quick_check",
                "foreign_key_check", "Z_PRIMARYKEY",
            ]))
    }

    @Test func v1StoreIsLightweightUnderV2AndTheMatrixCoversEveryVersion() throws {
        let project = try SampleProject()
        let build = try runSeedbuild(
            [
                "build", "seeds/postcodes.csv", "--model", "schemas/PostCodesModel.xcdatamodeld/PostCodesModel.xcdatamodel", "--user-model",
                "schemas/UserModel.xcdatamodeld", "--configuration", "PostCodesConf", "--out", "v1", "--ignore-column", "ward",
            ], in: project.url)
        #expect(build.status == 0, "\(build.stderr)")
        let result = try runSeedbuild(
            [
                "verify", "v1/manifest.json", "--model", "schemas/PostCodesModel.xcdatamodeld", "--user-model",
                "schemas/UserModel.xcdatamodeld", "--all-versions", "--json",
            ], in: project.url)
        #expect(result.status == 0, "\(result.stdout)")
        let object = try report(result.stdout)
        #expect(object["result"] as? String == "lightweight")
        let models = try #require(object["models"] as? [[String: Any]])
        #expect(models.map { $0["version"] as? String } == ["PostCodesModel 2", "PostCodesModel"])
        #expect(models.map { $0["result"] as? String } == ["lightweight", "compatible"])
        let plan = models[0]["details"] as? [String] ?? []
        #expect(
            plan.contains { $0.hasPrefix("renameAttribute Postcode.area") } && plan.contains { $0.hasPrefix("addAttribute Postcode.ward") })
    }

    /// The app's user model has a second version (Rating gains an attribute): the seed built for the
    /// first opens directly under it once the installer stamps it, and as it is under the first.
    @Test func everyUserModelVersionIsReportedWithWhatItTakes() throws {
        let project = try SampleProject()
        let bundle = "schemas/UserModel.xcdatamodeld"
        let first = try String(contentsOfFile: project.path("\(bundle)/UserModel.xcdatamodel/contents"), encoding: .utf8)
        let second = first.replacingOccurrences(
            of: "<attribute name=\"comment\"",
            with: "<attribute name=\"mood\" optional=\"YES\" attributeType=\"String\"/>\n        <attribute name=\"comment\""
        )
        .replacingOccurrences(of: "userDefinedModelVersionIdentifier=\"1\"", with: "userDefinedModelVersionIdentifier=\"2\"")
        project.write("\(bundle)/UserModel 2.xcdatamodel/contents", second)
        project.write(
            "\(bundle)/.xccurrentversion",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>UserModel 2.xcdatamodel</string></dict></plist>
            """)
        let build = try runSeedbuild(
            [
                "build", "seeds/postcodes.csv", "--model", "schemas/PostCodesModel.xcdatamodeld", "--user-model",
                "\(bundle)/UserModel.xcdatamodel", "--out", "old",
            ],
            in: project.url)
        #expect(build.status == 0, "\(build.stderr)")
        let result = try runSeedbuild(
            [
                "verify", "old/manifest.json", "--model", "schemas/PostCodesModel.xcdatamodeld", "--user-model", bundle, "--all-versions",
                "--json",
            ], in: project.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let models = try #require(try report(result.stdout)["models"] as? [[String: Any]])
        let verdicts = models.map { "\($0["version"] as? String ?? "?"): \($0["result"] as? String ?? "?")" }
        #expect(verdicts.contains("PostCodesModel 2 + UserModel 2: restamped"), "\(verdicts)")
        #expect(verdicts.contains("PostCodesModel 2 + UserModel: compatible"), "\(verdicts)")
        let text = try runSeedbuild(
            ["verify", "old/manifest.json", "--model", "schemas/PostCodesModel.xcdatamodeld", "--user-model", bundle, "--all-versions"],
            in: project.url)
        #expect(text.stdout.contains("restamped — opens directly, read-only, once the installer stamps it for this model on the device"))
    }

    @Test func damagedArtifactsFailNamingTheCheck() throws {
        let project = try built()
        let artifact = project.path("build/seed/postcodes.sqlite.gz")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: artifact)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: artifact))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: artifact))
        let flipped = try runSeedbuild(["verify", "build/seed/manifest.json"], in: project.url)
        #expect(flipped.status == 70)
        #expect(flipped.stdout.contains("FAIL artifact sha256"))

        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: project.path("cut.sqlite.gz")))
        let truncated = try runSeedbuild(["verify", "cut.sqlite.gz"], in: project.url)
        #expect(truncated.status == 70)
        #expect(truncated.stdout.contains("FAIL inflate") && truncated.stdout.contains("ends early"))
    }

    @Test func refusedModelFailsWithTheReason() throws {
        let project = try built()
        let v2 = try String(
            contentsOfFile: project.path("schemas/PostCodesModel.xcdatamodeld/PostCodesModel 2.xcdatamodel/contents"), encoding: .utf8)
        project.write(
            "Changed.xcdatamodel/contents",
            v2.replacingOccurrences(
                of: #"<attribute name="latitude" optional="YES" attributeType="Double""#,
                with: #"<attribute name="latitude" optional="YES" attributeType="String""#))
        let result = try runSeedbuild(["verify", "build/seed/manifest.json", "--model", "Changed.xcdatamodel"], in: project.url)
        #expect(result.status == 70)
        #expect(result.stdout.contains("refused"))
        #expect(result.stdout.contains("Postcode.latitude changed type from Double to String"))
    }
}
