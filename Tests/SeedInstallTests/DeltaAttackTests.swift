import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

@testable import SeedInstall

#if canImport(Glibc)
    import Glibc
#endif

/// Deltas a server (or a careless publisher) gets wrong: each is refused, the release comes whole by
/// its artifact within the same fetch, the installed seed stays in use until the new one is checked,
/// nothing is left in the folder or written outside it, and the reason is reported.
@Suite("Installing by a delta from a hostile server", .serialized)
struct DeltaAttackTests {
    private let fixture = DeltaChannelFixture(directory: TemporaryDirectory())

    /// Installs release 8 from `server`, expecting the artifact after a fallback for `reason`.
    private func expectFallback(
        _ reason: DeltaFallback.Reason, saying text: String, from server: HostileServer, before: [String: String]
    ) throws -> SeedInstaller.Result {
        let (result, log) = try fixture.install(from: server.url + "postcodes/1/")
        #expect(result.via == .full && result.fallback?.reason == reason, "\(String(describing: result.fallback))")
        #expect(result.fallback?.message.contains(text) == true, "\(String(describing: result.fallback?.message))")
        try fixture.expectEightInstalled(result)
        fixture.expectSevenInUseUntilChecked(log)
        #expect(server.requests.contains { $0.hasPrefix("GET") && $0.contains("/artifacts/") }, "the artifact within the same fetch")
        #expect(snapshot(fixture.directory.path, except: fixture.app) == before, "nothing outside the folder changes")
        return result
    }

    private func deltaFile(_ entry: Manifest.DeltaEntry) -> String {
        fixture.channel + "/" + ReleasePointer.deltaPath(sha256: entry.sha256)
    }

    @Test func aDeltaWithAnotherHashIsRefused() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: deltaFile(entry)))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: deltaFile(entry)))
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        _ = try expectFallback(
            .checksum, saying: "it was changed or damaged", from: server, before: snapshot(fixture.directory.path, except: fixture.app))
    }

    @Test func aTruncatedDeltaIsRefused() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: deltaFile(entry)))
        try handle.truncate(atOffset: UInt64(entry.bytes / 2))
        try handle.close()
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        _ = try expectFallback(
            .checksum, saying: "\(entry.bytes / 2) bytes with SHA-256", from: server,
            before: snapshot(fixture.directory.path, except: fixture.app))
    }

    /// A server sending more than the manifest states is cut off at its Content-Length, before the body.
    @Test func aDeltaLargerThanStatedIsRefused() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let server = try HostileServer(root: fixture.dist, target: ".delta.gz", attack: .oversized)
        defer { withExtendedLifetime(server) {} }
        _ = try expectFallback(
            .tooLarge, saying: "larger than \(entry.bytes) bytes", from: server,
            before: snapshot(fixture.directory.path, except: fixture.app))
    }

    /// The entry claims the installed release, but its delta was made from another store of that data version.
    @Test func aDeltaFromAnotherBaseIsRefused() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let other = try fixture.release(70, DeltaChannelFixture.postcodes(1..<2990), layout: .coreData)
        let forged = fixture.directory.path("forged.delta.gz")
        try StoreDiff().write(base: other + "/postcodes.sqlite", new: fixture.directory.path("out-8/postcodes.sqlite"), to: forged)
        let digest = try FileDigest(of: forged)
        var lying = entry
        (lying.bytes, lying.sha256) = (digest.bytes, digest.sha256)
        try TestDeltas.publish(forged, as: lying, in: fixture.channel)
        try rewriteManifest(in: fixture.channel, version: 8) { values, _ in values["deltas"] = .array([lying.jsonValue]) }
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        _ = try expectFallback(
            .wrongBase, saying: "the delta starts from data version 70", from: server,
            before: snapshot(fixture.directory.path, except: fixture.app))
    }

    /// Release 9 lists the delta from 7 that release 8 listed: as its older manifest had it (it ends
    /// at 8's digest), or rewritten to claim 9's (the file still ends at 8).
    @Test(arguments: [false, true])
    func aDeltaReplayedFromAnOlderManifestIsRefused(claimingThisRelease: Bool) throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        try fixture.release(9, DeltaChannelFixture.postcodes(7..<3012) { $0 % 300 == 0 }, layout: .coreData, base: 8)
        try fixture.publish(9)
        let nine = try TestDeltas.manifest(in: fixture.directory.path("out-9"))
        var replayed = entry
        if claimingThisRelease { replayed.toContentDigest = try #require(nine.values["contentDigest"]?.stringValue) }
        try rewriteManifest(in: fixture.channel, version: 9) { values, _ in values["deltas"] = .array([replayed.jsonValue]) }
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        let (result, log) = try fixture.install(from: server.url + "postcodes/1/")
        #expect(
            result.via == .full && result.dataVersion == 9 && result.fallback?.reason == .wrongTarget,
            "\(String(describing: result.fallback))")
        let expected = claimingThisRelease ? "the delta ends at data version 8" : "leads to content digest"
        #expect(result.fallback?.message.contains(expected) == true, "\(String(describing: result.fallback?.message))")
        #expect(
            server.requests.contains { $0.contains("/deltas/") } == claimingThisRelease,
            "an entry for another release is refused before downloading")
        let installed = try #require(StoreMetadata.read(at: URL(fileURLWithPath: fixture.app + "/postcodes-9.sqlite")).contentDigest)
        #expect(installed == nine.values["contentDigest"]?.stringValue)
        #expect(try installedFiles(fixture.app) == ["postcodes-9.sqlite", "postcodes.current"])
        fixture.expectSevenInUseUntilChecked(log)
    }

    /// An app wrote to its seed: the file is no longer what was installed, so no delta applies to it.
    @Test func aStoreTheAppChangedTakesTheArtifact() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        let installed = fixture.app + "/postcodes-7.sqlite"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: installed)
        try StoreConnection(path: installed, mode: .writable).execute("UPDATE ZPOSTCODE SET ZLATITUDE = 0 WHERE ZPOSTCODE = 'P100007'")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: installed)
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        let result = try expectFallback(
            .storeModified, saying: "the store was changed after it was installed", from: server,
            before: snapshot(fixture.directory.path, except: fixture.app))
        #expect(!server.requests.contains { $0.contains("/deltas/") }, "no delta is downloaded for a changed store")
        #expect(result.fallback?.message.contains(installed) == true)
    }

    /// A `.current` written before installs recorded the file's SHA-256: the base is checked against
    /// the SHA-256 the delta's entry states for it, and the delta applies.
    @Test func anInstallFromBeforeTheRecordIsCheckedAgainstTheEntry() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        let current = fixture.app + "/postcodes.current"
        var object = try #require(try JSONValue(jsonText: String(contentsOfFile: current, encoding: .utf8)).objectValue)
        object["storeSHA256"] = nil
        try Data(JSONValue.object(object).prettyText.utf8).write(to: URL(fileURLWithPath: current))
        let (result, _) = try fixture.install(from: fixture.channel)
        #expect(result.via == .delta, "\(String(describing: result.fallback))")
        try fixture.expectEightInstalled(result)
    }
}

extension DeltaAttackTests {
    /// Cancelling while the delta trickles in cancels the install: no fallback to the artifact, the
    /// installed seed stays, and no file of the attempt is left.
    @Test(.timeLimit(.minutes(1)))
    func cancellingDuringTheDeltaDoesNotFallBack() async throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        let server = try HostileServer(root: fixture.dist, target: ".delta.gz", attack: .trickle, lifetime: 30)
        let log = PhaseLog(currentFile: fixture.app + "/postcodes.current")
        let installer = fixture.installer()
        let (app, url) = (fixture.app, server.url + "postcodes/1/")
        let task = Task { try await installer.install(from: url, to: app, progress: log.record) }
        while !log.entries.contains(where: { $0.phase == .downloadingDelta }) { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let artifactGets = server.requests.filter { $0.hasPrefix("GET") && $0.contains("/artifacts/") }
        #expect(artifactGets.isEmpty, "no fallback after a cancel: \(artifactGets)")
        #expect(!log.entries.contains { $0.phase == .downloading || $0.phase == .installed })
        #expect(try installedFiles(fixture.app) == ["postcodes-7.sqlite", "postcodes.current"])
        withExtendedLifetime(server) {}
    }
}

extension DeltaAttackTests {
    /// A symlink planted at the delta's partial name is replaced, never written through, and what a
    /// killed apply left (a copy and its journal) is cleaned before the delta installs.
    @Test func plantedFilesAtTheDeltasNamesAreNeverFollowed() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        let outside = fixture.directory.write("outside.txt", "the app's own file")
        symlink(outside, fixture.app + "/.postcodes-8.delta.gz.part")
        for name in [".postcodes-8.sqlite.tmp-DEADBEEF", ".postcodes-8.sqlite.tmp-DEADBEEF-journal"] {
            fixture.directory.write("app/" + name, "left by a killed fetch")
        }
        let (result, log) = try fixture.install(from: fixture.channel)
        #expect(result.via == .delta, "\(String(describing: result.fallback))")
        try fixture.expectEightInstalled(result)
        fixture.expectSevenInUseUntilChecked(log)
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "the app's own file")
    }
}
