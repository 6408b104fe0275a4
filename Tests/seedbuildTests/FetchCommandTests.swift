import Foundation
import Testing

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

    @Test func signedFetchWithTheTrustedKeyInstallsWithoutWarning() throws {
        let project = try SampleProject()
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-keys-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: keys) }
        #expect(try runSeedbuild(["keygen", "--out", keys], in: project.url).status == 0)
        let built = try runSeedbuild(["seeds/postcodes.csv", "--sign-key", keys + "/seedbuild-signing.key"], in: project.url)
        #expect(built.status == 0, "\(built.stderr)")
        let fetched = try runSeedbuild(["fetch", "dist/postcodes/2/", "--to", "app-data", "--trusted-key", keys + "/seedbuild-signing.pub"], in: project.url)
        #expect(fetched.status == 0 && fetched.stderr.isEmpty, "\(fetched.stderr)")
    }
}
