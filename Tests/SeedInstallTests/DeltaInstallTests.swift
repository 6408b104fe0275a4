import Foundation
import SeedModel
import SeedPipeline
import SeedTestSupport
import Testing

@testable import SeedInstall

@Suite("Installing a release by its delta", .serialized)
struct DeltaInstallTests {
    private let fixture = DeltaChannelFixture(directory: TemporaryDirectory())

    /// Two releases in each layout: the second arrives by its delta over a real server, holds exactly
    /// its rows, keeps every surviving row's Z_PK and the store's UUID, and costs a fraction of the artifact.
    @Test(arguments: [StoreLayout.coreData, .plain])
    func theNextReleaseArrivesByItsDelta(layout: StoreLayout) throws {
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        let url = server.url + "postcodes/1/"
        let entry = try fixture.sevenInstalledEightWithDelta(layout: layout, url: url)
        let seven = fixture.directory.path("installed-7.sqlite")
        try FileManager.default.copyItem(atPath: fixture.app + "/postcodes-7.sqlite", toPath: seven)
        let before = snapshot(fixture.directory.path, except: fixture.app)
        let earlier = server.requests.count

        let (result, log) = try fixture.install(from: url)
        #expect(result.via == .delta && result.fallback == nil, "\(String(describing: result.fallback))")
        try fixture.expectEightInstalled(result)
        fixture.expectSevenInUseUntilChecked(log)
        let phases = log.entries.map(\.phase)
        #expect(phases.contains(.downloadingDelta) && phases.contains(.applyingDelta) && phases.contains(.checkingStore))
        #expect(!phases.contains(.downloading) && !phases.contains(.inflating), "the artifact is never fetched")
        let requests = server.requests.dropFirst(earlier)
        #expect(
            !requests.contains { $0.contains("/artifacts/") } && requests.contains { $0.hasPrefix("GET") && $0.contains("/deltas/") },
            "\(requests)")

        let artifact = try #require(result.manifest.artifact)
        func size(_ file: String) throws -> Int64 { try FileDigest(of: fixture.channel + "/" + file).bytes }
        let release = try size(ReleasePointer.fileName) + size(ReleasePointer.manifestPath(dataVersion: 8))
        #expect(result.downloadedBytes == release + entry.bytes, "the pointer, the manifest and the delta, nothing else")
        #expect(result.downloadedBytes * 4 < artifact.bytes, "\(result.downloadedBytes) bytes by delta, the artifact is \(artifact.bytes)")

        let installed = fixture.app + "/postcodes-8.sqlite"
        let (table, key) = layout == .coreData ? ("ZPOSTCODE", "ZPOSTCODE") : ("County", "code")
        let old = try fixture.primaryKeys(seven, table: table, key: key)
        let new = try fixture.primaryKeys(installed, table: table, key: key)
        let surviving = Set(old.keys).intersection(new.keys)
        #expect(surviving.count >= 2 && surviving.allSatisfy { old[$0] == new[$0] }, "every surviving row keeps its Z_PK")
        #expect(
            try StoreMetadata.read(at: URL(fileURLWithPath: installed)).storeUUID
                == StoreMetadata.read(at: URL(fileURLWithPath: seven)).storeUUID)
        #expect(snapshot(fixture.directory.path, except: fixture.app) == before, "nothing outside the folder changes")

        let again = try fixture.installer().install(from: url, to: fixture.app)
        #expect(again.outcome == .alreadyInstalled && again.via == nil && again.downloadedBytes == release)
    }

    /// An app whose model has a user entity the channel's has not gets the seed re-stamped on the
    /// device. Named after the seed's entities, it leaves their numbers, and the re-stamp changes the
    /// metadata tables only: the delta applies and the result is re-stamped again. Named before them,
    /// it renumbers the seed's rows, which are then no longer the delta's base: the artifact comes.
    @Test(arguments: ["Zoo", "Bookmark"])
    func aStoreRestampedForTheAppsModel(userEntity: String) throws {
        try fixture.release(7, DeltaChannelFixture.postcodes(0..<300), layout: .coreData)
        try fixture.publish(7)
        let user =
            #"{"name": "User", "versionIdentifiers": ["1"], "configurations": [{"name": "UserConf", "entities": ["ENTITY"]}], "entities": [{"name": "ENTITY", "attributes": [{"name": "note", "type": "String"}]}]}"#
        var installer = fixture.installer()
        installer.model = try Model.merged([
            ModelLoader.load(json: Data(testModelJSON.utf8), source: ModelSource(file: "model.json", version: "1")),
            ModelLoader.load(
                json: Data(user.replacingOccurrences(of: "ENTITY", with: userEntity).utf8), source: ModelSource(file: "user.json")),
        ])
        #expect(try installer.install(from: fixture.channel, to: fixture.app).restamped)
        try fixture.release(8, DeltaChannelFixture.postcodes(5..<310) { $0 % 50 == 0 }, layout: .coreData, base: 7)
        try TestDeltas.add(from: fixture.directory.path("out-7"), to: fixture.directory.path("out-8"), channel: fixture.channel)
        try fixture.publish(8)

        let (result, log) = try fixture.install(from: fixture.channel, with: installer)
        #expect(result.outcome == .installed && result.restamped)
        if userEntity == "Zoo" {
            #expect(result.via == .delta, "\(String(describing: result.fallback))")
            let expected = try fixture.rows(fixture.directory.path("out-8/postcodes.sqlite"))
            #expect(try fixture.rows(result.storePath) == expected)
        } else {
            #expect(result.via == .full && result.fallback?.reason == .restamped, "\(String(describing: result.fallback))")
            #expect(result.fallback?.message.contains("re-stamped on this device with the app's entity numbers") == true)
        }
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: result.storePath))
        #expect(metadata.dataVersion == 8 && metadata[StoreMetadata.Key.restampedFrom] != nil)
        #expect(metadata.versionHashes.keys.contains(userEntity), "stamped for the app's model again")
        let sha256 = try FileDigest(of: result.storePath).sha256
        #expect(
            InstallRecord(directory: fixture.app, dataset: "postcodes").current?.storeSHA256 == sha256,
            "the re-stamped file is what a next delta's base must be")
        #expect(try installedFiles(fixture.app) == ["postcodes-8.sqlite", "postcodes.current"])
        fixture.expectSevenInUseUntilChecked(log)
    }

    /// A delta that inflates past what the installer reads into memory (`maxDeltaBytes`, which its
    /// stated size is within) is not decoded further: the artifact comes instead, saying so.
    @Test func aDeltaLargerThanTheMemoryBoundTakesTheArtifact() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        var installer = fixture.installer()
        installer.maxDeltaBytes = Int(entry.bytes)
        let (result, _) = try fixture.install(from: fixture.channel, with: installer)
        #expect(result.via == .full && result.fallback?.reason == .tooLarge, "\(String(describing: result.fallback))")
        #expect(result.fallback?.message.contains("the most this installer reads into memory") == true)
        try fixture.expectEightInstalled(result)
    }

    /// An app's connection left a write-ahead log and its index beside the installed store: they go
    /// with it when the next release replaces it.
    @Test func theReplacedStoresSidecarFilesGoWithIt() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        for suffix in ["-wal", "-shm"] { fixture.directory.write("app/postcodes-7.sqlite" + suffix, "") }
        let (result, _) = try fixture.install(from: fixture.channel)
        #expect(result.via == .delta, "\(String(describing: result.fallback))")
        try fixture.expectEightInstalled(result)
    }

    /// A release without a delta from the installed one comes whole, and says why.
    @Test func withoutADeltaTheArtifactComesWhole() throws {
        try fixture.release(7, DeltaChannelFixture.postcodes(0..<300), layout: .coreData)
        try fixture.publish(7)
        _ = try fixture.installer().install(from: fixture.channel, to: fixture.app)
        try fixture.release(8, DeltaChannelFixture.postcodes(5..<310), layout: .coreData, base: 7)
        try fixture.publish(8)
        let (result, log) = try fixture.install(from: fixture.channel)
        #expect(result.via == .full && result.fallback?.reason == .noDelta, "\(String(describing: result.fallback))")
        #expect(result.fallback?.message.contains("no delta from the installed data version 7 (none)") == true)
        let artifact = try #require(result.manifest.artifact)
        let release =
            try FileDigest(of: fixture.channel + "/latest.json").bytes + FileDigest(of: fixture.channel + "/manifests/8.json").bytes
        #expect(
            result.downloadedBytes == release + artifact.bytes, "the artifact, read from the folder channel, the pointer and the manifest")
        try fixture.expectEightInstalled(result)
        fixture.expectSevenInUseUntilChecked(log)
    }
}
