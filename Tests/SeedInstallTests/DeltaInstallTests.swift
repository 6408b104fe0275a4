import Foundation
@testable import SeedInstall
import SeedModel
import SeedPipeline
import SeedTestSupport
import Testing

/// The phases an install reported, each with the store `.current` named at that moment.
final class PhaseLog: @unchecked Sendable {
    // Safe: every access goes through the lock.
    private let lock = NSLock()
    private var seen: [(phase: InstallProgress.Phase, current: String)] = []
    let currentFile: String

    init(currentFile: String) { self.currentFile = currentFile }

    func record(_ progress: InstallProgress) {
        let text = (try? String(contentsOfFile: currentFile, encoding: .utf8)) ?? ""
        let store = (try? JSONValue(jsonText: text))?.objectValue?["store"]?.stringValue ?? "none"
        lock.withLock { seen.append((progress.phase, store)) }
    }

    var entries: [(phase: InstallProgress.Phase, current: String)] { lock.withLock { seen } }
}

/// Releases that follow one another, installed by a delta or, when the delta fails, by the artifact.
struct DeltaChannelFixture {
    let directory: TemporaryDirectory
    var app: String { directory.path("app") }
    var dist: String { directory.path("dist") }
    var channel: String { directory.path("dist/postcodes/1") }

    /// `rows` generated postcodes (`P100000`…) of two counties; those `changed` says get another latitude.
    static func postcodes(_ rows: Range<Int>, changed: (Int) -> Bool = { _ in false }) -> String {
        "postcode,county_code,latitude,active,introduced,country_code\n"
            + rows.map { "P\(100_000 + $0),\($0 % 2 == 0 ? "KEN" : "EDI"),\(changed($0) ? "52.5" : "51.\($0 % 1000)"),yes,,E92000001\n" }.joined()
    }

    /// Builds and packages a release into `out-<version>`, following the release in `out-<base>`.
    @discardableResult
    func release(_ version: Int64, _ postcodes: String, layout: StoreLayout, base: Int64? = nil, sign key: SigningKey? = nil) throws -> String {
        writeTestInputs(directory, postcodes: postcodes)
        let built = try buildTestStore(directory) {
            $0.dataVersion = version
            $0.format = layout
            $0.outputDirectory = directory.path("out-\(version)")
            if let base { $0.base = directory.path("out-\(base)/postcodes.sqlite") }
        }
        var packager = Packager()
        packager.signingKey = key
        _ = try packager.package(built)
        return directory.path("out-\(version)")
    }

    func publish(_ version: Int64) throws {
        _ = try Publisher().publish(directory.path("out-\(version)"), to: dist)
    }

    func installer() -> SeedInstaller {
        var installer = SeedInstaller()
        installer.now = { Date(timeIntervalSince1970: 1_700_000_000 + 86_400) }
        installer.allowUnsigned = true
        installer.deadline = 120
        installer.transport = HTTPTransport(retryPolicy: .init(attempts: 2, initialDelay: 0.01, maxDelay: 0.05), limits: TransferLimits(idleTimeout: 10))
        return installer
    }

    /// Installs from `url`, logging each phase with what `.current` named then.
    func install(from url: String, with installer: SeedInstaller? = nil) throws -> (SeedInstaller.Result, PhaseLog) {
        let log = PhaseLog(currentFile: app + "/postcodes.current")
        let result = try (installer ?? self.installer()).install(from: url, to: app) { log.record($0) }
        return (result, log)
    }

    /// Release 7 (3,000 postcodes) installed, then release 8 (5 removed, 10 added, 6 moved) built
    /// following it, its delta listed, and published. Returns the delta's entry.
    func sevenInstalledEightWithDelta(layout: StoreLayout = .coreData, url: String? = nil) throws -> Manifest.DeltaEntry {
        try release(7, Self.postcodes(0..<3000), layout: layout)
        try publish(7)
        let first = try installer().install(from: url ?? channel, to: app)
        #expect(first.via == .full && first.fallback == nil, "nothing installed yet: no fallback to report")
        try release(8, Self.postcodes(5..<3010) { $0 % 500 == 0 }, layout: layout, base: 7)
        let entry = try TestDeltas.add(from: directory.path("out-7"), to: directory.path("out-8"), channel: channel)
        try publish(8)
        return entry
    }

    /// Release 8 installed whole: `.current` names it with the file's SHA-256, its rows and content
    /// digest are the release's, and the folder holds nothing else.
    func expectEightInstalled(_ result: SeedInstaller.Result) throws {
        #expect(result.outcome == .installed && result.dataVersion == 8)
        let store = app + "/postcodes-8.sqlite"
        let current = try #require(InstalledSeed(directory: app, dataset: "postcodes").current)
        let sha256 = try FileDigest(of: store).sha256
        #expect(current.store == "postcodes-8.sqlite" && current.storeSHA256 == sha256)
        let manifest = try TestDeltas.manifest(in: directory.path("out-8"))
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: store)).contentDigest == manifest.values["contentDigest"]?.stringValue)
        let expected = try rows(directory.path("out-8/postcodes.sqlite"))
        #expect(try rows(store) == expected, "the installed store holds the release's rows")
        #expect(try installedFiles(app) == ["postcodes-8.sqlite", "postcodes.current"])
    }

    /// Until the new store was checked, `.current` named release 7.
    func expectSevenInUseUntilChecked(_ log: PhaseLog) {
        let before = log.entries.prefix { $0.phase != .installed }
        #expect(!before.isEmpty && before.allSatisfy { $0.current == "postcodes-7.sqlite" }, "\(log.entries.map { "\($0.phase) \($0.current)" })")
        #expect(log.entries.last?.phase == .installed)
    }

    /// Every table's rows (metadata tables aside), each value with its type, in key order.
    func rows(_ path: String) throws -> [String: [String]] {
        let store = try StoreConnection(path: path, mode: .immutable)
        var result: [String: [String]] = [:]
        let metadata: Set<String> = ["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE", "seed_metadata", "seed_model"]
        for table in try DeltaApplier.tables(of: store) where !metadata.contains(table.name) {
            let values = table.columns.map { "typeof(\(DeltaPlan.quote($0))) || ':' || quote(\(DeltaPlan.quote($0)))" }.joined(separator: " || '|' || ")
            result[table.name] = try store.strings("SELECT \(values) FROM \(DeltaPlan.quote(table.name)) ORDER BY 1")
        }
        return result
    }

    /// natural key → Z_PK of a table.
    func primaryKeys(_ path: String, table: String, key: String) throws -> [String: Int64] {
        var keys: [String: Int64] = [:]
        try StoreConnection(path: path, mode: .immutable).forEachRow("SELECT \(key), Z_PK FROM \(table)") { row in
            if case .text(let name) = row.value(0), case .integer(let pk) = row.value(1) { keys[name] = pk }
        }
        return keys
    }
}

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
        #expect(!requests.contains { $0.contains("/artifacts/") } && requests.contains { $0.hasPrefix("GET") && $0.contains("/deltas/") }, "\(requests)")

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
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: installed)).storeUUID == StoreMetadata.read(at: URL(fileURLWithPath: seven)).storeUUID)
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
        let user = #"{"name": "User", "versionIdentifiers": ["1"], "configurations": [{"name": "UserConf", "entities": ["ENTITY"]}], "entities": [{"name": "ENTITY", "attributes": [{"name": "note", "type": "String"}]}]}"#
        var installer = fixture.installer()
        installer.model = try Model.merged([
            ModelLoader.load(json: Data(testModelJSON.utf8), source: ModelSource(file: "model.json", version: "1")),
            ModelLoader.load(json: Data(user.replacingOccurrences(of: "ENTITY", with: userEntity).utf8), source: ModelSource(file: "user.json")),
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
        #expect(InstalledSeed(directory: fixture.app, dataset: "postcodes").current?.storeSHA256 == sha256, "the re-stamped file is what a next delta's base must be")
        #expect(try installedFiles(fixture.app) == ["postcodes-8.sqlite", "postcodes.current"])
        fixture.expectSevenInUseUntilChecked(log)
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
        let release = try FileDigest(of: fixture.channel + "/latest.json").bytes + FileDigest(of: fixture.channel + "/manifests/8.json").bytes
        #expect(result.downloadedBytes == release + artifact.bytes, "the artifact, read from the folder channel, the pointer and the manifest")
        try fixture.expectEightInstalled(result)
        fixture.expectSevenInUseUntilChecked(log)
    }
}

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
        _ = try expectFallback(.checksum, saying: "it was changed or damaged", from: server, before: snapshot(fixture.directory.path, except: fixture.app))
    }

    @Test func aTruncatedDeltaIsRefused() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: deltaFile(entry)))
        try handle.truncate(atOffset: UInt64(entry.bytes / 2))
        try handle.close()
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        _ = try expectFallback(.checksum, saying: "\(entry.bytes / 2) bytes with SHA-256", from: server, before: snapshot(fixture.directory.path, except: fixture.app))
    }

    /// A server sending more than the manifest states is cut off at its Content-Length, before the body.
    @Test func aDeltaLargerThanStatedIsRefused() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let server = try HostileServer(root: fixture.dist, target: ".delta.gz", attack: .oversized)
        defer { withExtendedLifetime(server) {} }
        _ = try expectFallback(.tooLarge, saying: "larger than \(entry.bytes) bytes", from: server, before: snapshot(fixture.directory.path, except: fixture.app))
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
        _ = try expectFallback(.wrongBase, saying: "the delta starts from data version 70", from: server, before: snapshot(fixture.directory.path, except: fixture.app))
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
        #expect(result.via == .full && result.dataVersion == 9 && result.fallback?.reason == .wrongTarget, "\(String(describing: result.fallback))")
        let expected = claimingThisRelease ? "the delta ends at data version 8" : "leads to content digest"
        #expect(result.fallback?.message.contains(expected) == true, "\(String(describing: result.fallback?.message))")
        #expect(server.requests.contains { $0.contains("/deltas/") } == claimingThisRelease, "an entry for another release is refused before downloading")
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
        let result = try expectFallback(.storeModified, saying: "the store was changed after it was installed", from: server, before: snapshot(fixture.directory.path, except: fixture.app))
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
