import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

@testable import SeedInstall

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
            + rows.map { "P\(100_000 + $0),\($0 % 2 == 0 ? "KEN" : "EDI"),\(changed($0) ? "52.5" : "51.\($0 % 1000)"),yes,,E92000001\n" }
            .joined()
    }

    /// Builds and packages a release into `out-<version>`, following the release in `out-<base>`.
    /// The build writes no delta of its own: each test lists the deltas it means (``TestDeltas``),
    /// forged ones included. `DeltaCommandTests` installs the deltas the nightly job writes.
    @discardableResult
    func release(_ version: Int64, _ postcodes: String, layout: StoreLayout, base: Int64? = nil, sign key: SigningKey? = nil) throws
        -> String
    {
        writeTestInputs(directory, postcodes: postcodes)
        let built = try buildTestStore(directory) {
            $0.dataVersion = version
            $0.format = layout
            $0.outputDirectory = directory.path("out-\(version)")
            if let base {
                $0.base = directory.path("out-\(base)/postcodes.sqlite")
                $0.deltaCount = 0
                // The fixture's releases change a third of their rows on purpose: past any change budget.
                $0.acceptChange = true
            }
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
        installer.transport = HTTPTransport(
            retryPolicy: .init(attempts: 2, initialDelay: 0.01, maxDelay: 0.05), limits: TransferLimits(idleTimeout: 10))
        return installer
    }

    /// Installs from `url`, logging each phase with what `.current` named then.
    func install(from url: String, with installer: SeedInstaller? = nil) throws -> (SeedInstaller.Result, PhaseLog) {
        let log = PhaseLog(currentFile: app + "/postcodes.current")
        let result = try (installer ?? self.installer()).install(from: url, to: app) { log.record($0) }
        return (result, log)
    }

    /// Release 7 (3,000 postcodes, or `rows`) installed, then release 8 (5 removed, 10 added, one in
    /// 500 moved) built following it, its delta listed, and published. Returns the delta's entry.
    func sevenInstalledEightWithDelta(layout: StoreLayout = .coreData, url: String? = nil, rows: Int = 3000) throws -> Manifest.DeltaEntry {
        try release(7, Self.postcodes(0..<rows), layout: layout)
        try publish(7)
        let first = try installer().install(from: url ?? channel, to: app)
        #expect(first.via == .full && first.fallback == nil, "nothing installed yet: no fallback to report")
        try release(8, Self.postcodes(5..<(rows + 10)) { $0 % 500 == 0 }, layout: layout, base: 7)
        let entry = try TestDeltas.add(from: directory.path("out-7"), to: directory.path("out-8"), channel: channel)
        try publish(8)
        return entry
    }

    /// Release 8 installed whole: `.current` names it with the file's SHA-256 (or, for a store a delta
    /// gave and its set digest checked, the release's set digest, which its rows give, and its stamp),
    /// its rows and content digest are the release's, and the folder holds nothing else.
    func expectEightInstalled(_ result: SeedInstaller.Result) throws {
        #expect(result.outcome == .installed && result.dataVersion == 8)
        let store = app + "/postcodes-8.sqlite"
        let current = try #require(InstallRecord(directory: app, dataset: "postcodes").current)
        #expect(current.store == "postcodes-8.sqlite" && current.stamp != nil)
        if let recorded = current.storeSHA256 {
            let sha256 = try FileDigest(of: store).sha256
            #expect(recorded == sha256)
        } else {
            #expect(result.via == .delta)
            let digest = try SetDigest.compute(of: store).description
            #expect(current.setDigest == digest)
        }
        let manifest = try TestDeltas.manifest(in: directory.path("out-8"))
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: store)).contentDigest == manifest.values["contentDigest"]?.stringValue)
        let expected = try rows(directory.path("out-8/postcodes.sqlite"))
        #expect(try rows(store) == expected, "the installed store holds the release's rows")
        #expect(try installedFiles(app) == ["postcodes-8.sqlite", "postcodes.current"])
    }

    /// Until the new store was checked, `.current` named release 7.
    func expectSevenInUseUntilChecked(_ log: PhaseLog) {
        let before = log.entries.prefix { $0.phase != .installed }
        #expect(
            !before.isEmpty && before.allSatisfy { $0.current == "postcodes-7.sqlite" },
            "\(log.entries.map { "\($0.phase) \($0.current)" })")
        #expect(log.entries.last?.phase == .installed)
    }

    /// Every table's rows (metadata tables aside), each value with its type, in key order.
    func rows(_ path: String) throws -> [String: [String]] {
        let store = try StoreConnection(path: path, mode: .immutable)
        var result: [String: [String]] = [:]
        let metadata: Set<String> = ["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE", "seed_metadata", "seed_model"]
        for table in try DeltaApplier.tables(of: store) where !metadata.contains(table.name) {
            let values = table.columns.map { "typeof(\(quoteIdentifier($0))) || ':' || quote(\(quoteIdentifier($0)))" }.joined(
                separator: " || '|' || ")
            result[table.name] = try store.strings("SELECT \(values) FROM \(quoteIdentifier(table.name)) ORDER BY 1")
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
