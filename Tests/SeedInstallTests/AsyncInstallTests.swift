import Foundation
import SeedInstall
import SeedModel
import SeedPipeline
import SeedTestSupport
import Testing

@Suite("Installing from a task: progress and cancellation", .timeLimit(.minutes(2)))
struct AsyncInstallTests {
    private let directory = TemporaryDirectory()
    private var app: String { directory.path("app") }

    private var installer: SeedInstaller {
        var installer = SeedInstaller()
        // The test releases expire 14 days after they are written; installing a day later is within that.
        installer.now = { Date().addingTimeInterval(86_400) }
        installer.allowUnsigned = true
        return installer
    }

    /// Postcodes enough for an artifact of a few hundred kilobytes.
    private func manyPostcodes(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var lines = ["postcode,county_code,latitude"]
        for index in 0..<count {
            lines.append(
                "ZZ\(index) \(UInt32.random(in: 0...UInt32.max, using: &generator)),KEN,\(Double.random(in: 50...56, using: &generator))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func progressGoesThroughEveryPhaseWithTheBytesTheManifestStates() async throws {
        let server = try NginxServer()
        let out = try packagedRelease(directory, version: 7)
        let published = try Publisher().publish(out, to: server.url)
        let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")), path: "m")
        let artifact = try #require(manifest.artifact)
        let store = try #require(manifest.store)

        let log = ProgressLog()
        let result = try await installer.install(from: published.channel, to: app, progress: log.record)
        withExtendedLifetime(server) {}
        #expect(result.outcome == .installed && result.dataVersion == 7)

        let seen = log.reports
        var phases: [InstallProgress.Phase] = []
        for report in seen where phases.last != report.phase { phases.append(report.phase) }
        #expect(phases == [.checkingRelease, .downloading, .inflating, .checkingStore, .installed])
        let downloaded = seen.last { $0.phase == .downloading }
        #expect(
            downloaded?.completedBytes == artifact.bytes && downloaded?.totalBytes == artifact.bytes && downloaded?.fractionCompleted == 1)
        #expect(seen.last { $0.phase == .inflating }?.completedBytes == store.bytes)
        #expect(
            seen.filter { $0.phase == .downloading }.map(\.completedBytes)
                == seen.filter { $0.phase == .downloading }.map(\.completedBytes).sorted())

        let again = try await installer.install(from: published.channel, to: app)
        #expect(again.outcome == .alreadyInstalled)
    }

    @Test func cancellingMidDownloadKeepsTheInstalledSeedAndLeavesNoTemporaryFile() async throws {
        // 32 KiB/s: the newer release's download lasts seconds, and is cancelled once bytes arrive.
        // Published into the server's folder, as publishing over HTTP would read it back at that rate.
        let server = try NginxServer(limitRate: "32k")
        let channel = server.url + "postcodes/1/"
        _ = try Publisher().publish(try packagedRelease(directory, version: 7), to: server.root)
        _ = try await installer.install(from: channel, to: app)
        let newer = try packagedRelease(directory, version: 8, postcodes: manyPostcodes(20_000))
        let artifactBytes = try #require(
            try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: newer + "/manifest.json")), path: "m").artifact?.bytes)
        let wholeDownload = Double(artifactBytes) / (32 * 1024)
        #expect(wholeDownload > 8, "the artifact takes seconds at the server's rate")
        _ = try Publisher().publish(newer, to: server.root)

        let log = ProgressLog()
        let installer = self.installer
        let app = self.app
        let task = Task { try await installer.install(from: channel, to: app, progress: log.record) }
        while log.downloaded == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let started = Date()
        task.cancel()
        let outcome = await task.result
        let stoppedAfter = Date().timeIntervalSince(started)
        withExtendedLifetime(server) {}

        #expect(throws: CancellationError.self) { try outcome.get() }
        // On the installing thread, reports stop within moments of the cancel. The test's own
        // wake-up waits for a thread of Swift's task pool, which other tests may hold for seconds on
        // a two-core machine: its bound is only that the download did not run to its end.
        let lastReport = try #require(log.lastReportTime)
        #expect(lastReport.timeIntervalSince(started) < 1, "the download stops within moments")
        #expect(stoppedAfter < wholeDownload / 2, "stopped after \(stoppedAfter) s, not when the download would have ended")
        #expect(log.downloaded < artifactBytes)
        #expect(try installedFiles(app) == ["postcodes-7.sqlite", "postcodes.current"], "no partial download, no temporary store")
        let current = try String(contentsOfFile: app + "/postcodes.current", encoding: .utf8)
        #expect(current.contains("\"store\" : \"postcodes-7.sqlite\""), "the installed seed stays in use")
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: app + "/postcodes-7.sqlite")).dataVersion == 7)
    }

    @Test func aTaskCancelledBeforeItStartsInstallsNothing() async throws {
        let published = try Publisher().publish(try packagedRelease(directory, version: 7), to: directory.path("dist"))
        let installer = self.installer
        let app = self.app
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await installer.install(from: published.channel, to: app)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!FileManager.default.fileExists(atPath: app + "/postcodes.current"))
    }
}

/// The progress reports of one install, as they arrive on its thread.
private final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [InstallProgress] = []
    private var lastTime: Date?

    var reports: [InstallProgress] { lock.withLock { received } }

    /// When the last report arrived.
    var lastReportTime: Date? { lock.withLock { lastTime } }

    /// Bytes of the download so far.
    var downloaded: Int64 { reports.last { $0.phase == .downloading }?.completedBytes ?? 0 }

    @Sendable func record(_ progress: InstallProgress) {
        let now = Date()
        lock.withLock {
            received.append(progress)
            lastTime = now
        }
    }
}
