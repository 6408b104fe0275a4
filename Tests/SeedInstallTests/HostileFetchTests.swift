import Crypto
import Foundation
import SeedInstall
import SeedPipeline
import SeedTestSupport
import Testing

/// Every file under `root` but those in `app`, with its type, size and modification time: what an install must never change.
func snapshot(_ root: String, except app: String) -> [String: String] {
    var files: [String: String] = [:]
    for case let name as String in FileManager.default.enumerator(atPath: root) ?? FileManager.DirectoryEnumerator() {
        let path = (root as NSString).appendingPathComponent(name)
        guard !path.hasPrefix(app + "/"), path != app, let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            continue
        }
        files[name] =
            "\(attributes[.type] ?? "") \(attributes[.size] ?? "") \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }
    return files
}

@Suite("Fetching from a hostile server", .serialized)
struct HostileFetchTests {
    private let directory = TemporaryDirectory()
    private var app: String { directory.path("app") }
    private var channel: String { directory.path("dist/postcodes/1") }

    private func release(_ version: Int64, postcodes: String? = nil) throws -> String {
        try packagedRelease(directory, version: version, postcodes: postcodes)
    }

    private func installer(deadline: TimeInterval = 60, limits: TransferLimits = TransferLimits(idleTimeout: 10), attempts: Int = 2)
        -> SeedInstaller
    {
        var installer = SeedInstaller()
        installer.now = { Date(timeIntervalSince1970: 1_700_000_000 + 86_400) }
        installer.allowUnsigned = true
        installer.deadline = deadline
        installer.transport = HTTPTransport(retryPolicy: .init(attempts: attempts, initialDelay: 0.01, maxDelay: 0.05), limits: limits)
        return installer
    }

    /// Release 7 installed in `app` from the folder channel, then release 8 published there.
    private func installedSevenPublishedEight() throws -> Manifest {
        _ = try Publisher().publish(try release(7), to: directory.path("dist"))
        _ = try installer().install(from: channel, to: app)
        let eight = try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\nCT9 9ZZ,EDI\n")
        _ = try Publisher().publish(eight, to: directory.path("dist"))
        return try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: eight + "/manifest.json")), path: "m")
    }

    private func expectSevenStillInstalled() throws {
        #expect(
            try String(contentsOfFile: app + "/postcodes.current", encoding: .utf8).contains("postcodes-7.sqlite"),
            "the old install is kept")
        #expect(FileManager.default.fileExists(atPath: app + "/postcodes-7.sqlite"))
    }

    /// A cache in between (a CDN) must ask the origin again for latest.json, the one object ever
    /// replaced: its request says so; the immutable objects' requests leave caching to the cache.
    @Test func thePointerIsAskedForPastCaches() throws {
        _ = try installedSevenPublishedEight()
        let server = try HostileServer(root: directory.path("dist"), target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        _ = try installer().install(from: server.url + "postcodes/1/", to: app)
        let gets = server.requests.filter { $0.hasPrefix("GET") }
        #expect(gets.contains { $0.contains("latest.json") && $0.contains("cache=no-cache") }, "\(gets)")
        #expect(
            gets.filter { $0.contains("/artifacts/") || $0.contains("/manifests/") }.allSatisfy { $0.contains("cache=None") }, "\(gets)")
        #expect(gets.contains { $0.contains("/artifacts/") })
    }

    @Test func oversizedPointerIsRefusedBeforeItsBody() throws {
        _ = try installedSevenPublishedEight()
        let before = snapshot(directory.path, except: app)
        let server = try HostileServer(root: directory.path("dist"), target: "latest.json", attack: .hugeLength)
        defer { withExtendedLifetime(server) {} }
        let start = Date()
        let error = #expect(throws: TransferError.self) { try installer().install(from: server.url + "postcodes/1/", to: app) }
        #expect(error?.kind == .tooLarge(limit: 65_536) && error?.url.hasSuffix("latest.json") == true, "\(String(describing: error))")
        #expect(Date().timeIntervalSince(start) < 5, "refused on its Content-Length, not after 3 GiB")
        try expectSevenStillInstalled()
        #expect(snapshot(directory.path, except: app) == before)
    }

    @Test func endlessPointerStopsAtTheCap() throws {
        _ = try installedSevenPublishedEight()
        let server = try HostileServer(root: directory.path("dist"), target: "latest.json", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        let error = #expect(throws: TransferError.self) { try installer().install(from: server.url + "postcodes/1/", to: app) }
        #expect(error?.kind == .tooLarge(limit: 65_536))
        try expectSevenStillInstalled()
    }

    @Test(arguments: [HostileServer.Attack.endless, .oversized, .encoded])
    func artifactStopsAtItsStatedSize(_ attack: HostileServer.Attack) throws {
        let manifest = try installedSevenPublishedEight()
        let before = snapshot(directory.path, except: app)
        let server = try HostileServer(root: directory.path("dist"), target: ".sqlite.gz", attack: attack)
        defer { withExtendedLifetime(server) {} }
        let error = #expect(throws: TransferError.self) { try installer().install(from: server.url + "postcodes/1/", to: app) }
        switch attack {
        case .oversized:
            #expect(error?.kind == .tooLarge(limit: manifest.artifact!.bytes), "\(String(describing: error))")
        case .endless:
            #expect(error?.description.contains("states no Content-Length for the download") == true, "\(String(describing: error))")
        default:
            #expect(error?.description.contains("Content-Encoding gzip, which was not asked for") == true, "\(String(describing: error))")
        }
        #expect(error?.url.contains("/artifacts/") == true)
        #expect(
            server.requests.filter { $0.hasPrefix("GET") && $0.contains("/artifacts/") }.count == 1,
            "refused, not retried: \(server.requests)")
        try expectSevenStillInstalled()
        #expect(!FileManager.default.fileExists(atPath: app + "/.postcodes-8.sqlite.gz.part"), "nothing past the stated size is kept")
        #expect(snapshot(directory.path, except: app) == before)
    }

    @Test func oneBytePerSecondEndsAtTheDeadline() throws {
        _ = try installedSevenPublishedEight()
        let server = try HostileServer(root: directory.path("dist"), target: ".sqlite.gz", attack: .trickle)
        defer { withExtendedLifetime(server) {} }
        let start = Date()
        let error = #expect(throws: TransferError.self) { try installer(deadline: 3).install(from: server.url + "postcodes/1/", to: app) }
        let elapsed = Date().timeIntervalSince(start)
        guard case .timedOut(let why) = error?.kind else {
            Issue.record("not a timeout: \(String(describing: error))")
            return
        }
        #expect(why.contains("deadline of 3 s") && why.contains("bytes received"), "\(why)")
        #expect(error?.url.contains("/artifacts/") == true && error?.description.contains("--deadline") == true)
        #expect(elapsed < 6, "\(elapsed) s")
        try expectSevenStillInstalled()
    }

    @Test func crawlingServerFallsBelowTheMinimumRate() throws {
        _ = try installedSevenPublishedEight()
        let server = try HostileServer(root: directory.path("dist"), target: ".sqlite.gz", attack: .trickle)
        defer { withExtendedLifetime(server) {} }
        let start = Date()
        let slow = installer(deadline: 60, limits: TransferLimits(idleTimeout: 10, minimumRate: 1000, rateWindow: 2))
        let error = #expect(throws: TransferError.self) { try slow.install(from: server.url + "postcodes/1/", to: app) }
        guard case .tooSlow(let why) = error?.kind else {
            Issue.record("not too slow: \(String(describing: error))")
            return
        }
        #expect(why.contains("below the minimum of 1000 bytes/s") && why.contains("bytes received"), "\(why)")
        #expect(Date().timeIntervalSince(start) < 8)
        try expectSevenStillInstalled()
    }

    @Test func stalledServerIsGivenUpAfterTheIdleTimeout() throws {
        _ = try installedSevenPublishedEight()
        let server = try HostileServer(root: directory.path("dist"), target: ".sqlite.gz", attack: .stall)
        defer { withExtendedLifetime(server) {} }
        let start = Date()
        let stalled = installer(deadline: 60, limits: TransferLimits(idleTimeout: 1, minimumRate: 0), attempts: 2)
        let error = #expect(throws: TransferError.self) { try stalled.install(from: server.url + "postcodes/1/", to: app) }
        guard case .timedOut(let why) = error?.kind else {
            Issue.record("not a timeout: \(String(describing: error))")
            return
        }
        #expect(why.contains("nothing received for 1 s"), "\(why)")
        #expect(Date().timeIntervalSince(start) < 8, "two tries of 1 s idle each")
        try expectSevenStillInstalled()
    }
}
