import Foundation
import SeedInstall
import SeedTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `seedbuild fetch` by a delta: what `--json` says, and a fetch killed while it applies one.
@Suite("seedbuild fetch by a delta")
struct FetchDeltaCommandTests {
    private let fixture = DeltaChannelFixture(directory: TemporaryDirectory())

    private func fetch(_ arguments: [String] = []) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = seedbuildBinary
        process.arguments = ["fetch", fixture.channel, "--to", fixture.app, "--allow-unsigned"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func summary() throws -> [String: Any] {
        let (status, stdout) = try fetch(["--json"])
        #expect(status == 0, "\(stdout)")
        return try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(stdout)")
    }

    /// `--json` says how the release came (`via`), every byte it fetched, and why a delta was not used.
    @Test func theSummarySaysHowTheReleaseCame() throws {
        try fixture.release(7, DeltaChannelFixture.postcodes(0..<3000), layout: .coreData)
        try fixture.publish(7)
        let first = try summary()
        #expect(first["via"] as? String == "full" && first["fallback"] == nil && (first["downloadedBytes"] as? Int ?? 0) > 0)
        try fixture.release(8, DeltaChannelFixture.postcodes(5..<3010) { $0 % 500 == 0 }, layout: .coreData, base: 7)
        let entry = try TestDeltas.add(from: fixture.directory.path("out-7"), to: fixture.directory.path("out-8"), channel: fixture.channel)
        try fixture.publish(8)
        let artifact = try #require(try TestDeltas.manifest(in: fixture.directory.path("out-8")).artifact)

        let installed = fixture.app + "/postcodes-7.sqlite"
        let untouched = try Data(contentsOf: URL(fileURLWithPath: installed))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: installed)
        try StoreConnection(path: installed, mode: .writable).execute("UPDATE ZPOSTCODE SET ZLATITUDE = 0 WHERE ZPOSTCODE = 'P100007'")
        let (status, text) = try fetch()
        #expect(status == 0 && text.contains("installed data version 8") && text.contains("by the full artifact"), "\(text)")
        #expect(text.contains("the delta was not used (storeModified): \(installed): SHA-256"), "\(text)")

        // Release 8 again, from a store that is 7 as installed: the same fetch by its delta.
        try FileManager.default.removeItem(atPath: fixture.app)
        try FileManager.default.createDirectory(atPath: fixture.app, withIntermediateDirectories: true)
        try untouched.write(to: URL(fileURLWithPath: installed))
        let sha256 = try FileDigest(of: installed).sha256
        let digest = try #require(StoreMetadata.read(at: URL(fileURLWithPath: installed)).contentDigest)
        try Data(#"{"store": "postcodes-7.sqlite", "dataVersion": 7, "contentDigest": "\#(digest)", "storeSHA256": "\#(sha256)"}"#.utf8)
            .write(to: URL(fileURLWithPath: fixture.app + "/postcodes.current"))
        let second = try summary()
        #expect(
            second["outcome"] as? String == "installed" && second["via"] as? String == "delta" && second["fallback"] == nil, "\(second)")
        let bytes = try #require(second["downloadedBytes"] as? Int)
        #expect(bytes > Int(entry.bytes) && bytes * 4 < Int(artifact.bytes), "\(bytes) bytes by delta, the artifact is \(artifact.bytes)")
        let again = try summary()
        #expect(again["outcome"] as? String == "alreadyInstalled" && again["via"] is NSNull)
    }

    @Test func sigkillDuringTheApplyLeavesTheOldReleaseAndTheNextFetchInstallsTheNew() throws {
        // Big enough that applying a third of the rows' changes takes a while: the kill lands inside
        // the transaction, once the copy it is applied to is whole (the apply keeps no journal).
        try fixture.release(7, DeltaChannelFixture.postcodes(0..<150_000), layout: .coreData)
        try fixture.publish(7)
        _ = try fixture.installer().install(from: fixture.channel, to: fixture.app)
        try fixture.release(8, DeltaChannelFixture.postcodes(0..<150_000) { $0 % 3 == 0 }, layout: .coreData, base: 7)
        try TestDeltas.add(from: fixture.directory.path("out-7"), to: fixture.directory.path("out-8"), channel: fixture.channel)
        try fixture.publish(8)
        let seven = try FileDigest(of: fixture.app + "/postcodes-7.sqlite")

        let fetch = Process()
        fetch.executableURL = seedbuildBinary
        fetch.arguments = ["fetch", fixture.channel, "--to", fixture.app, "--allow-unsigned", "--json"]
        fetch.standardOutput = FileHandle.nullDevice
        fetch.standardError = FileHandle.nullDevice
        try fetch.run()
        var killedMidApply = false
        while fetch.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: fixture.app)) ?? []
            let copies = names.filter { $0.hasPrefix(".postcodes-8.sqlite.tmp-") }
            let sizes = copies.map {
                (try? FileManager.default.attributesOfItem(atPath: fixture.app + "/" + $0)[.size] as? Int).flatMap { $0 }
            }
            if sizes.contains(Int(seven.bytes)) {
                kill(fetch.processIdentifier, SIGKILL)
                killedMidApply = true
                break
            }
            usleep(500)
        }
        fetch.waitUntilExit()
        try #require(killedMidApply, "the fetch ended (status \(fetch.terminationStatus)) before the apply could be caught")
        #expect(fetch.terminationReason == .uncaughtSignal)
        let left = try installedFiles(fixture.app)
        #expect(left.contains { $0.hasPrefix(".postcodes-8.sqlite.tmp-") }, "the killed fetch's copy is there: \(left)")
        #expect(!left.contains("postcodes-8.sqlite"), "nothing under the final name: \(left)")
        #expect(SeedInstaller.installedStore(dataset: "postcodes", in: fixture.app)?.dataVersion == 7, "the old release stays in use")
        #expect(try FileDigest(of: fixture.app + "/postcodes-7.sqlite") == seven, "the installed store is never written")

        let (result, _) = try fixture.install(from: fixture.channel)
        #expect(result.via == .delta, "\(String(describing: result.fallback))")
        try fixture.expectEightInstalled(result)
    }
}
