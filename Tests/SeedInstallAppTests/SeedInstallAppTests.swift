import Foundation
import SeedInstall
import SeedModel
import SeedTestSupport
import Testing

/// A Core Data app's side of a seed, through SeedInstall's public API only (the release it installs
/// is built with the pipeline by SeedTestSupport): install it for the app's model, from a folder or
/// a server, then hand the installed store to `NSPersistentContainer` (docs/coredata.md).
@Suite("A Core Data app installs its seed with SeedInstall alone", .timeLimit(.minutes(2)))
struct SeedInstallAppTests {
    private let directory = TemporaryDirectory()

    /// The installer as the app configures it: the publisher's key and the app's merged model.
    private func installer(trusting publicKeyPEM: String) throws -> SeedInstaller {
        var installer = SeedInstaller()
        installer.trustedKeys = [try TrustedKey(pem: publicKeyPEM, path: "seedbuild-signing.pub")]
        installer.model = try SampleSeed.mergedModel()
        return installer
    }

    @Test func installFromAFolderThenNothingToDo() throws {
        let (channel, key) = try SampleSeed.publishSigned(in: directory)
        let installer = try installer(trusting: key)
        let app = directory.path("Application Support/Seeds")
        #expect(SeedInstaller.installedStore(dataset: "postcodes", in: app) == nil, "nothing installed yet")

        let result = try installer.install(from: channel, to: app)
        #expect(result.outcome == .installed && result.dataVersion == 3)
        #expect(result.signedBy == (try TrustedKey(pem: key, path: "k")).keyID)
        #expect(result.migration == nil && !result.restamped, "published for this merged model: it opens directly")
        #expect(result.storePath == app + "/postcodes-3.sqlite")
        // What the app opens at its next launch, before fetching again.
        let installed = SeedInstaller.installedStore(dataset: "postcodes", in: app)
        #expect(installed?.path == result.storePath && installed?.dataVersion == 3)

        // What the app checks before adding the store read-only with configuration PostCodesConf.
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: result.storePath))
        #expect(metadata.configuration == "PostCodesConf" && metadata.dataVersion == 3)
        #expect(metadata.hashDifferences(from: try SampleSeed.mergedModel(), embeddedModel: nil).isEmpty)
        #expect(metadata.rowCounts == ["County": 12, "Postcode": 311])

        let again = try installer.install(from: channel, to: app)
        #expect(again.outcome == .alreadyInstalled && again.storePath == result.storePath)
    }

    @Test func installFromAServerReportingProgress() async throws {
        let (channel, key) = try SampleSeed.publishSigned(in: directory)
        let server = try NginxServer()
        try FileManager.default.copyItem(atPath: (channel as NSString).deletingLastPathComponent, toPath: server.root + "/postcodes")
        let phases = PhaseLog()

        let result = try await installer(trusting: key).install(from: server.url + "postcodes/2/", to: directory.path("app")) { progress in
            phases.append(progress.phase)
        }
        #expect(result.outcome == .installed)
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: result.storePath)).dataVersion == 3)
        #expect(phases.distinct == [.checkingRelease, .downloading, .inflating, .checkingStore, .installed])
        withExtendedLifetime(server) {}
    }

    @Test func anUntrustedReleaseIsRefusedAndNothingIsInstalled() throws {
        let (channel, _) = try SampleSeed.publishSigned(in: directory)
        let stranger = SampleSeed.strangersPublicKeyPEM()
        let error = try #require(throws: InstallError.self) {
            try installer(trusting: stranger).install(from: channel, to: directory.path("app"))
        }
        #expect(error.kind == .signature)
        #expect(!FileManager.default.fileExists(atPath: directory.path("app/postcodes.current")))
    }
}

/// The phases progress reports, in order, from the installing thread.
private final class PhaseLog: @unchecked Sendable {
    // Safe because every access holds the lock.
    private let lock = NSLock()
    private var phases: [InstallProgress.Phase] = []

    func append(_ phase: InstallProgress.Phase) {
        lock.withLock { phases.append(phase) }
    }

    /// Each phase once, in the order first reported.
    var distinct: [InstallProgress.Phase] {
        lock.withLock { phases.reduce(into: []) { if $0.last != $1 { $0.append($1) } } }
    }
}
