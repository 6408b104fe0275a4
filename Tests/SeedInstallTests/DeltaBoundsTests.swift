import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

@testable import SeedInstall

/// Deltas whose shape or size would hold an install (and its folder lock) for long: refused before
/// any statement or byte, or stopped by the apply's deadline or a cancel. Past a refusal or the
/// deadline the artifact comes in the same fetch; after a cancel nothing does; the installed seed
/// stays in use meanwhile.
@Suite("Deltas within bounds on the device", .serialized)
struct DeltaBoundsTests {
    private let fixture = DeltaChannelFixture(directory: TemporaryDirectory())

    /// Writes a delta made from release 8's genuine one by `forge` (the header it states, then its
    /// operations in apply order), and lists it in manifest 8 in the genuine one's place (its size
    /// and SHA-256), as the server of an unsigned channel can.
    private func forged(_ entry: Manifest.DeltaEntry, header: (DeltaHeader) -> DeltaHeader, _ forge: (Delta, DeltaWriter) throws -> Void)
        throws
    {
        let genuine = try DeltaReader.read(fixture.channel + "/" + ReleasePointer.deltaPath(sha256: entry.sha256))
        let path = fixture.directory.path("forged.delta.gz")
        let writer = try DeltaWriter(path: path, header: header(genuine.header))
        try forge(genuine, writer)
        try writer.finish()
        let digest = try FileDigest(of: path)
        var lying = entry
        (lying.bytes, lying.sha256) = (digest.bytes, digest.sha256)
        try TestDeltas.publish(path, as: lying, in: fixture.channel)
        try rewriteManifest(in: fixture.channel, version: 8) { values, _ in values["deltas"] = .array([lying.jsonValue]) }
    }

    /// Release 8 came whole after the delta was refused for `reason`, saying `text`.
    private func expectFallback(_ result: SeedInstaller.Result, _ reason: DeltaFallback.Reason, saying text: String) throws {
        #expect(result.via == .full && result.fallback?.reason == reason, "\(String(describing: result.fallback))")
        #expect(result.fallback?.message.contains(text) == true, "\(String(describing: result.fallback?.message))")
        try fixture.expectEightInstalled(result)
    }

    /// The postcode each `Z_PK` of the installed release holds.
    private func postcodes() throws -> [Int64: String] {
        let keys = try fixture.primaryKeys(fixture.directory.path("out-7/postcodes.sqlite"), table: "ZPOSTCODE", key: "ZPOSTCODE")
        return Dictionary(keys.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    /// ZPOSTCODE listed twice: first keyed by its postcode column (each delete by it a scan of the
    /// table), then as it is. The deletes name the first, everything else the second: every check
    /// that looks a table up by name sees a table as the store has it, and the result is release 8.
    @Test func aTableNamedTwiceIsRefusedBeforeAnyStatement() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let postcodes = try postcodes()
        var index = 0
        try forged(
            entry,
            header: { header in
                var header = header
                index = header.tables.firstIndex { $0.name == "ZPOSTCODE" }!
                var byPostcode = header.tables[index]
                byPostcode.keyColumns = [byPostcode.columns.firstIndex(of: "ZPOSTCODE")!]
                header.tables.insert(byPostcode, at: index)
                return header
            }
        ) { genuine, writer in
            for operation in genuine.operations {
                switch operation {
                case .delete(index, let key):
                    guard case .integer(let pk) = key.first, let postcode = postcodes[pk] else {
                        Issue.record("no postcode for \(key)")
                        return
                    }
                    try writer.write(.delete(table: index, key: [.text(postcode)]))
                default:
                    try writer.write(operation.moved(to: operation.table >= index ? operation.table + 1 : operation.table))
                }
            }
        }
        let (result, log) = try fixture.install(from: fixture.channel)
        try expectFallback(result, .corrupt, saying: "the delta names table ZPOSTCODE twice")
        fixture.expectSevenInUseUntilChecked(log)
    }

    /// ZPOSTCODE keyed by its postcode column, which is unique but not the primary key: every delete
    /// and update by it would scan the table.
    @Test func aKeyThatIsNotThePrimaryKeyIsRefused() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let postcodes = try postcodes()
        var index = 0
        try forged(
            entry,
            header: { header in
                var header = header
                index = header.tables.firstIndex { $0.name == "ZPOSTCODE" }!
                header.tables[index].keyColumns = [header.tables[index].columns.firstIndex(of: "ZPOSTCODE")!]
                return header
            }
        ) { genuine, writer in
            let byPostcode = { (key: [DeltaValue]) -> [DeltaValue] in
                guard case .integer(let pk) = key.first, let postcode = postcodes[pk] else { return key }
                return [.text(postcode)]
            }
            for operation in genuine.operations {
                switch operation {
                case .delete(index, let key): try writer.write(.delete(table: index, key: byPostcode(key)))
                case .update(index, let key, let changes): try writer.write(.update(table: index, key: byPostcode(key), changes: changes))
                default: try writer.write(operation)
                }
            }
        }
        let (result, _) = try fixture.install(from: fixture.channel)
        try expectFallback(
            result, .corrupt, saying: "the delta keys table ZPOSTCODE by (ZPOSTCODE), but its primary key in the installed store is (Z_PK)")
    }

    /// The manifest states a delta larger than the installer reads into memory: not one byte of it is
    /// requested; the fetch reads the pointer, the manifest and the artifact.
    @Test func aStatedSizeOverTheLimitIsRefusedBeforeDownloading() throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        defer { withExtendedLifetime(server) {} }
        var installer = fixture.installer()
        installer.maxDeltaBytes = Int(entry.bytes) - 1
        let (result, _) = try fixture.install(from: server.url + "postcodes/1/", with: installer)
        try expectFallback(
            result, .tooLarge, saying: "is \(entry.bytes) bytes, more than the \(entry.bytes - 1) this installer reads into memory")
        #expect(!server.requests.contains { $0.contains("/deltas/") }, "\(server.requests)")
        let release =
            try FileDigest(of: fixture.channel + "/latest.json").bytes + FileDigest(of: fixture.channel + "/manifests/8.json").bytes
        #expect(
            result.downloadedBytes == release + (result.manifest.artifact?.bytes ?? 0), "the pointer, the manifest and the artifact only")
    }

    /// Two million deletes of a key no row has, each cheap, all together far longer than the deadline
    /// for reading and applying a delta (2 s here): stopped, and the artifact comes in the same fetch.
    @Test func anApplyPastItsDeadlineStopsAndTheArtifactComes() throws {
        // 200,000 rows: a store large enough that a delta inflating to 28 MB is within its bound.
        let entry = try fixture.sevenInstalledEightWithDelta(rows: 200_000)
        var index = 0
        try forged(
            entry,
            header: { header in
                index = header.tables.firstIndex { $0.name == "ZPOSTCODE" }!
                return header
            }
        ) { genuine, writer in
            var added = false
            for operation in genuine.operations {
                // After the table's own deletes, before its inserts.
                if !added, (operation.table, operation.rank) > (index, 1) {
                    for _ in 0..<2_000_000 { try writer.write(.delete(table: index, key: [.integer(.max)])) }
                    added = true
                }
                try writer.write(operation)
            }
        }
        var installer = fixture.installer()
        installer.deltaApplyTimeout = 2
        let (result, log) = try fixture.install(from: fixture.channel, with: installer)
        try expectFallback(result, .timedOut, saying: "at its deadline of 2.0 s (SeedInstaller.deltaApplyTimeout)")
        fixture.expectSevenInUseUntilChecked(log)
        let phases = log.entries.map(\.phase)
        #expect(
            (phases.firstIndex(of: .downloadingDelta) ?? .max) < (phases.firstIndex(of: .inflating) ?? -1),
            "the artifact after the delta: \(phases)")
    }

    /// A single statement of the apply that would run for hours is interrupted at the deadline
    /// within SQLite, and the artifact comes.
    @Test(.timeLimit(.minutes(1)))
    func aStatementPastTheDeadlineIsInterrupted() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        try plantSlowTrigger()
        var installer = fixture.installer()
        installer.deltaApplyTimeout = 1
        let (result, log) = try fixture.install(from: fixture.channel, with: installer)
        try expectFallback(result, .timedOut, saying: "at its deadline of 1.0 s (SeedInstaller.deltaApplyTimeout)")
        let phases = log.entries.map(\.phase)
        #expect(
            (phases.firstIndex(of: .applyingDelta) ?? .max) < (phases.firstIndex(of: .inflating) ?? -1), "stopped while applying: \(phases)"
        )
    }

    /// A trigger in the installed store that joins ZPOSTCODE with itself three times after each delete
    /// (hours for 3,000 rows), with `.current` recording the file's new SHA-256 as if installed so.
    private func plantSlowTrigger() throws {
        let installed = fixture.app + "/postcodes-7.sqlite"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: installed)
        try StoreConnection(path: installed, mode: .writable).execute(
            "CREATE TRIGGER slow AFTER DELETE ON ZPOSTCODE BEGIN SELECT count(*) FROM ZPOSTCODE a, ZPOSTCODE b, ZPOSTCODE c; END")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: installed)
        let current = fixture.app + "/postcodes.current"
        var object = try #require(try JSONValue(jsonText: String(contentsOfFile: current, encoding: .utf8)).objectValue)
        object["storeSHA256"] = .string(try FileDigest(of: installed).sha256)
        try Data(JSONValue.object(object).prettyText.utf8).write(to: URL(fileURLWithPath: current))
    }

    /// A trigger in the installed store makes a single statement of the apply run for hours;
    /// cancelling the install interrupts SQLite within it. No artifact follows.
    @Test(.timeLimit(.minutes(1)))
    func cancellingDuringTheApplyStopsIt() async throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        try plantSlowTrigger()
        let current = fixture.app + "/postcodes.current"
        var installer = fixture.installer()
        installer.deltaApplyTimeout = 3600
        let log = PhaseLog(currentFile: current)
        let (app, channel) = (fixture.app, fixture.channel)
        let task = Task { try await installer.install(from: channel, to: app, progress: log.record) }
        while !log.entries.contains(where: { $0.phase == .applyingDelta }) { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!log.entries.contains { [.checkingStore, .downloading, .installed].contains($0.phase) }, "\(log.entries.map(\.phase))")
        #expect(try installedFiles(fixture.app) == ["postcodes-7.sqlite", "postcodes.current"])
    }
}

extension DeltaOperation {
    /// The same operation on another table of the header.
    func moved(to table: Int) -> DeltaOperation {
        switch self {
        case .clear: .clear(table: table)
        case .delete(_, let key): .delete(table: table, key: key)
        case .insert(_, let row): .insert(table: table, row: row)
        case .update(_, let key, let changes): .update(table: table, key: key, changes: changes)
        }
    }
}
