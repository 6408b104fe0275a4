import Foundation
import Testing

/// Mistakes on the command line get a usage error (64) that says what to do; rejects stay rejects.
@Suite("Exit codes and mistakes")
struct UsageTests {
    @Test func aMisspeltCommandIsNotTakenForAFile() throws {
        let project = try SampleProject()
        let result = try runSeedbuild(["verfy", "x"], in: project.url)
        #expect(result.status == 64)
        #expect(result.stderr.contains("unknown command \"verfy\"; did you mean verify?"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path("build")))
        // An existing file of that name is a file, and a path is a path (a missing CSV: 66).
        project.write("verfy", "postcode\n")
        #expect(try runSeedbuild(["verfy"], in: project.url).stderr.contains("unknown command") == false)
        #expect(try runSeedbuild(["seeds/nope.csv"], in: project.url).status != 64)
    }

    @Test func bareSeedbuildPrintsTheUsage() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let bare = try runSeedbuild([], in: empty)
        #expect(bare.status == 64)
        #expect(bare.stderr.contains("SUBCOMMANDS:") && bare.stderr.contains("verify"), "\(bare.stderr)")
        #expect(bare.stderr.contains("no CSV given and no seedbuild.json here"))
        #expect(!bare.stderr.contains("tried ."))

        let project = try SampleProject()
        let inProject = try runSeedbuild(["build"], in: project.url)
        #expect(inProject.status == 64)
        #expect(inProject.stderr.contains("seedbuild.json names no \"sources\""))
    }

    @Test func versionIsPrinted() throws {
        let result = try runSeedbuild(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "0.1.0\n")
    }

    @Test func optionsACommandWouldIgnoreAreRefused() throws {
        let project = try SampleProject()
        let cases: [([String], String)] = [
            (["build", "seeds/postcodes.csv", "--publish", "X"], "--publish applies to the default command"),
            (["build", "seeds/postcodes.csv", "--allow-unsigned"], "--allow-unsigned applies to the default command"),
            (["build", "seeds/postcodes.csv", "--all-versions"], "--all-versions applies to the default command"),
            (["seeds/postcodes.csv", "--no-publish", "--publish", "X"], "--publish has no effect with --no-publish"),
            (["seeds/postcodes.csv", "--no-compress", "--publish", "X"], "--publish has no effect with --no-compress"),
            (["build", "seeds/postcodes.csv", "--no-compress", "--sign-key", "k"], "--sign-key applies to the artifact and manifest"),
            (["build", "seeds/postcodes.csv", "--no-compress", "--expires-in", "3"], "--expires-in applies to the artifact and manifest"),
            (["build", "seeds/postcodes.csv", "--json", "--quiet"], "--json and --quiet exclude each other"),
            (["publish", "--s3-acl", "public-read"], "--s3-acl applies to s3:// destinations only, not dist"),
        ]
        for (arguments, message) in cases {
            let result = try runSeedbuild(arguments, in: project.url)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: project.path("build")), "nothing was built")
        #expect(!FileManager.default.fileExists(atPath: project.path("X")) && !FileManager.default.fileExists(atPath: project.path("dist")))
    }

    @Test func aRaggedRecordAndAnOutOfOrderDuplicateStayRejects() throws {
        let project = try SampleProject()
        // Keys out of order send rows through the staging table; the duplicate is found there, and
        // naming its lines reads the file again past the ragged record.
        project.write(
            "bad/postcodes.csv",
            """
            postcode,county_code,latitude
            CT1 1AC,E10000016,51
            CT1 1AA,E10000016,51
            CT1 1AA,E10000016,52
            CT1 1AB,E10000016

            """)
        try FileManager.default.copyItem(atPath: project.path("seeds/counties.csv"), toPath: project.path("bad/counties.csv"))
        let refused = try runSeedbuild(["build", "bad/postcodes.csv"], in: project.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("2 rows rejected, more than --max-rejects 0"))
        let rejects = try String(contentsOfFile: project.path("build/seed/postcodes.rejects.csv"), encoding: .utf8)
        #expect(rejects.contains("the record has 2 fields, the header 3"))
        #expect(rejects.contains("duplicate Postcode.postcode \"\"CT1 1AA\"\": line 3 has it already"), "\(rejects)")
        #expect(!FileManager.default.fileExists(atPath: project.path("build/seed/postcodes.sqlite")))

        let allowed = try runSeedbuild(["build", "bad/postcodes.csv", "--max-rejects", "2"], in: project.url)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("Postcode 2 rows; 2 rejected"))
    }
}
