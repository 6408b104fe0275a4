import Foundation
import SeedTestSupport
import Testing

/// The default command never starts a channel afresh on its own: a channel that holds releases but
/// whose pointer cannot be read stops the job with exit 75; a new channel starts with a line saying so.
@Suite("No silent restart")
struct ChannelRestartTests {
    @Test func aNewChannelStartsAndSaysSo() throws {
        let project = try SampleProject()
        let first = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("starting channel dist/postcodes/2/: it holds no release yet"), "\(first.stdout)")
        #expect(FileManager.default.fileExists(atPath: project.path("dist/postcodes/2/channel.json")), "the marker a publish leaves")
        let second = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2"], in: project.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stdout.contains("holds no release yet"))
    }

    @Test func aFolderChannelWithoutItsPointerIsNotRestarted() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        try FileManager.default.removeItem(atPath: project.path("dist/postcodes/2/latest.json"))
        // Nor when the marker is gone too: the folder's manifests and artifacts still show releases.
        try FileManager.default.removeItem(atPath: project.path("dist/postcodes/2/channel.json"))
        let held = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2"], in: project.url)
        #expect(held.status == 75, "\(held.stderr)")
        #expect(
            held.stderr.contains("dist/postcodes/2/latest.json: the pointer is missing, but the channel holds releases (dist/postcodes/2/"),
            "\(held.stderr)")
        #expect(held.stderr.contains("--no-base"))
        #expect(!FileManager.default.fileExists(atPath: project.path("dist/postcodes/2/latest.json")), "nothing published")
        let restarted = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--no-base"], in: project.url)
        #expect(restarted.status == 0, "\(restarted.stderr)")
    }

    @Test func aWebDAVChannelWithoutItsPointerIsNotRestarted() throws {
        let project = try SampleProject()
        let server = try NginxServer()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1", "--publish", server.url], in: project.url).status == 0)
        try FileManager.default.removeItem(atPath: server.root + "/postcodes/2/latest.json")
        let held = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--publish", server.url], in: project.url)
        #expect(held.status == 75, "\(held.stderr)")
        #expect(
            held.stderr.contains("the pointer is missing, but the channel holds releases (\(server.url)postcodes/2/channel.json is there)"),
            "\(held.stderr)")
        #expect(!FileManager.default.fileExists(atPath: server.root + "/postcodes/2/latest.json"), "nothing published")

        // An explicit --base of the same channel says the same, with the same status.
        let explicit = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "out", "--data-version", "2", "--base", server.url + "postcodes/2/"], in: project.url)
        #expect(explicit.status == 75, "\(explicit.stderr)")
        withExtendedLifetime(server) {}
    }

    @Test func aFailingPointerStopsTheJobForALaterRun() throws {
        let project = try SampleProject()
        let server = try NginxServer()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1", "--publish", server.url], in: project.url).status == 0)
        // Every request answered 503, as a server that is down.
        let proxy = try FaultProxy(upstream: server.url, failFirst: 10_000, status: 503)
        let held = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--publish", proxy.url], in: project.url)
        #expect(held.status == 75, "\(held.stderr)")
        #expect(held.stderr.contains("the channel cannot be read now"), "\(held.stderr)")
        #expect(held.stderr.contains("503"), "\(held.stderr)")
        withExtendedLifetime((server, proxy)) {}
    }
}
