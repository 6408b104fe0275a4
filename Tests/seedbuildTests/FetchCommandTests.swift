import Foundation
import SeedTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("seedbuild fetch on the command line")
struct FetchCommandTests {
    @Test func unsignedFetchNeedsTheFlagAndWarnsEveryRun() throws {
        let project = try SampleProject()
        let built = try runSeedbuild(["seeds/postcodes.csv"], in: project.url)
        #expect(built.status == 0, "\(built.stderr)")
        let channel = "file://" + project.path("dist/postcodes/2/")

        let refused = try runSeedbuild(["fetch", channel, "--to", "app-data"], in: project.url)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--trusted-key") && refused.stderr.contains("--allow-unsigned"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path("app-data")))

        for expected in ["installed data version", "is installed already"] {
            let fetched = try runSeedbuild(["fetch", channel, "--to", "app-data", "--allow-unsigned", "--deadline", "60"], in: project.url)
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(fetched.stdout.contains(expected), "\(fetched.stdout)")
            #expect(fetched.stderr.contains("warning: installing from \(channel) without a trusted key"), "\(fetched.stderr)")
        }
    }

    /// `--json` on publish and fetch: one object on stdout each, for a script to read, and no status line.
    @Test func publishAndFetchSummariesAreJSON() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url).status == 0)
        func object(_ result: CommandResult) throws -> [String: Any] {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("\u{1B}["), "no status line off a terminal: \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        }
        let published = try object(try runSeedbuild(["publish", "--json"], in: project.url))
        #expect(published["outcome"] as? String == "published")
        let version = try #require(published["dataVersion"] as? Int)
        let pointer = try #require(published["pointerURL"] as? String)
        #expect(FileManager.default.fileExists(atPath: project.path(pointer)), "\(pointer)")
        #expect(try object(try runSeedbuild(["publish", "--json"], in: project.url))["outcome"] as? String == "already published")

        let channel = try #require(published["channel"] as? String)
        for outcome in ["installed", "alreadyInstalled"] {
            let fetched = try object(
                try runSeedbuild(
                    [
                        "fetch", channel, "--to", "app-data", "--allow-unsigned", "--model", "schemas/PostCodesModel.xcdatamodeld",
                        "--user-model", "schemas/UserModel.xcdatamodeld", "--json",
                    ], in: project.url))
            #expect(fetched["outcome"] as? String == outcome)
            #expect(fetched["dataVersion"] as? Int == version)
            #expect(fetched["signedBy"] is NSNull)
            #expect(fetched["opensBy"] as? String == "direct")
            let store = try #require(fetched["storePath"] as? String)
            #expect(FileManager.default.fileExists(atPath: store.hasPrefix("/") ? store : project.path(store)), "\(store)")
        }

        // A failure is JSON on stdout too, with the exit status; the message stays on stderr.
        let failed = try runSeedbuild(
            ["fetch", "dist/no-such-dataset/1/", "--to", "app-data", "--allow-unsigned", "--json"], in: project.url)
        #expect(failed.status == 66, "nothing published there: missing input")
        #expect(failed.stderr.contains("dist/no-such-dataset/1/latest.json: no release there"), "\(failed.stderr)")
        let failure = try #require(try JSONSerialization.jsonObject(with: Data(failed.stdout.utf8)) as? [String: Any], "\(failed.stdout)")
        #expect(failure["outcome"] as? String == "failed")
        #expect(failure["exitCode"] as? Int == Int(failed.status))
    }

    /// An app on an older user model (another Rating, an extra Bookmark) fetches the seed published for
    /// the current merged model: the seed's own entities match, so it is re-stamped on the device and
    /// opens directly — and the summary says so (`opensBy` was "direct", as if nothing had been done).
    @Test func aSeedRestampedForTheAppsModelOpensByRestamp() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv"], in: project.url).status == 0)
        let olderUserModel = project.path("OlderUserModel.json")
        try Data(
            #"""
            {"name": "UserModel", "versionIdentifiers": ["0"],
             "configurations": [{"name": "UserConf", "entities": ["Bookmark", "Rating"]}],
             "entities": [
               {"name": "Bookmark", "attributes": [{"name": "postcode", "type": "String", "optional": false}]},
               {"name": "Rating", "attributes": [{"name": "postcode", "type": "String", "optional": false},
                                                 {"name": "stars", "type": "Integer 16", "optional": false}]}
             ]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: olderUserModel))
        func fetch(to folder: String, json: Bool = true) throws -> CommandResult {
            try runSeedbuild(
                [
                    "fetch", "dist/postcodes/2/", "--to", folder, "--allow-unsigned", "--model", "schemas/PostCodesModel.xcdatamodeld",
                    "--user-model", olderUserModel,
                ]
                    + (json ? ["--json"] : []), in: project.url)
        }
        func summary(_ result: CommandResult) throws -> [String: Any] {
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        }
        let installed = try summary(try fetch(to: "app-data"))
        #expect(installed["outcome"] as? String == "installed")
        #expect(installed["opensBy"] as? String == "restamp")
        #expect(installed["migration"] == nil)
        let store = try #require(installed["storePath"] as? String)
        let inspected = try summary(
            try runSeedbuild(["inspect", store.hasPrefix("/") ? store : project.path(store), "--json"], in: project.url))
        let hashes = try #require(inspected["versionHashes"] as? [String: Any])
        #expect(hashes["Bookmark"] != nil && inspected["restampedFrom"] != nil, "stamped for the app's model: \(inspected)")

        let again = try summary(try fetch(to: "app-data"))
        #expect(again["outcome"] as? String == "alreadyInstalled" && again["opensBy"] as? String == "restamp")
        let text = try fetch(to: "app-text", json: false)
        #expect(text.stdout.contains("re-stamped on this device for the app's model"), "\(text.stdout)")
    }

    /// An unsupported or mistyped scheme is a usage error, found before anything is built or
    /// written: never a local folder named `gs:` reported as published.
    @Test func anAddressThatIsNotAFolderOrASupportedURLIsRefused() throws {
        let project = try SampleProject()
        let job = try runSeedbuild(["seeds/postcodes.csv", "--publish", "gs://bucket/seeds"], in: project.url)
        #expect(job.status == 64)
        #expect(job.stderr.contains("gs:// is not supported"), "\(job.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path("build/seed")), "refused before the build")

        #expect(try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url).status == 0)
        for address in ["gs://bucket/seeds", "ftp://example.com/seeds", "https:/example.com/seeds"] {
            let publish = try runSeedbuild(["publish", "--to", address, "--json"], in: project.url)
            #expect(publish.status == 64, "\(address): \(publish.stderr)")
            #expect(publish.stderr.contains(address), "\(publish.stderr)")
            let fetch = try runSeedbuild(["fetch", address, "--to", "app-data", "--allow-unsigned"], in: project.url)
            #expect(fetch.status == 64, "\(address): \(fetch.stderr)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: project.url.path)
        #expect(!written.contains { $0.hasSuffix(":") }, "\(written)")
        #expect(!written.contains("app-data"))
    }

    @Test func signedFetchWithTheTrustedKeyInstallsWithoutWarning() throws {
        let project = try SampleProject()
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-keys-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: keys) }
        #expect(try runSeedbuild(["keygen", "--out", keys], in: project.url).status == 0)
        let built = try runSeedbuild(["seeds/postcodes.csv", "--sign-key", keys + "/seedbuild-signing.key"], in: project.url)
        #expect(built.status == 0, "\(built.stderr)")
        let fetched = try runSeedbuild(
            ["fetch", "dist/postcodes/2/", "--to", "app-data", "--trusted-key", keys + "/seedbuild-signing.pub"], in: project.url)
        #expect(fetched.status == 0 && fetched.stderr.isEmpty, "\(fetched.stderr)")
    }

    @Test func aFetchKilledMidDownloadIsFinishedAndCleanedByTheNext() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv"], in: project.url).status == 0)
        // The hostile server sends the artifact one byte a second: the fetch is killed with a partial file.
        let server = try HostileServer(root: project.path("dist"), target: ".sqlite.gz", attack: .trickle, lifetime: 30)
        let fetch = Process()
        fetch.executableURL = seedbuildBinary
        fetch.arguments = ["fetch", server.url + "postcodes/2/", "--to", project.path("app-data"), "--allow-unsigned"]
        fetch.standardError = FileHandle.nullDevice
        try fetch.run()
        let partial = try #require(waitForPartial(in: project.path("app-data")), "a partial download appears")
        kill(fetch.processIdentifier, SIGKILL)
        fetch.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: project.path("app-data/" + partial)))

        let next = try runSeedbuild(["fetch", "dist/postcodes/2/", "--to", "app-data", "--allow-unsigned"], in: project.url)
        #expect(next.status == 0 && next.stdout.contains("installed data version"), "\(next.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: project.path("app-data")).filter {
            $0.hasPrefix(".") && !$0.hasSuffix(".lock")
        }
        #expect(left.isEmpty, "\(left)")
        withExtendedLifetime(server) {}
    }

    /// The name of a non-empty partial download in `folder`, once one appears (25 s at most: the
    /// server lives 30 s, and a loaded machine can take seconds to start the fetch).
    private func waitForPartial(in folder: String) -> String? {
        for _ in 0..<250 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if let name = names.first(where: { $0.hasSuffix(".sqlite.gz.part") }),
                ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? NSNumber)?.intValue ?? 0) > 0
            {
                return name
            }
            usleep(100_000)
        }
        return nil
    }
}
