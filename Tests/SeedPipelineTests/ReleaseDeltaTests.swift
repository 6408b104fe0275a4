import Foundation
import SeedInstall
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// A release publishes, from each of the last K releases, a delta straight to it: the one-hop delta
/// from its base, and the base's own deltas composed with it.
@Suite("Deltas published with each release")
struct ReleaseDeltaTests {
    let directory = TemporaryDirectory()
    var nights: DeltaNights { DeltaNights(directory: directory) }

    private func publish(_ name: String) throws -> Publisher.Result {
        try Publisher().publish(directory.path("out-\(name)"), to: directory.path("dist"))
    }

    private var channel: String { directory.path("dist/postcodes/1") }

    /// The channel's current manifest.
    private func currentManifest() throws -> Manifest {
        let pointer = try ReleasePointer(data: try Data(contentsOf: URL(fileURLWithPath: channel + "/latest.json")), source: channel)
        return try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: channel + "/" + pointer.manifest)), path: pointer.manifest)
    }

    /// A published release's store, inflated from the channel's artifact as an app installed it.
    private func publishedStore(_ version: Int64) throws -> String {
        let manifest = try Manifest(
            data: try Data(contentsOf: URL(fileURLWithPath: channel + "/manifests/\(version).json")), path: "\(version)")
        let artifact = channel + "/" + ReleasePointer.artifactPath(sha256: try #require(manifest.artifact).sha256)
        let store = directory.path("installed-\(version).sqlite")
        try GzipInflater.inflate(artifact, to: store)
        #expect(try FileDigest(of: store).sha256 == manifest.store?.sha256)
        return store
    }

    /// Two nights published into a folder channel, the second following the channel's current release.
    @discardableResult
    private func twoNightsPublished() throws -> (PackagedArtifact, PackagedArtifact) {
        let one = try nights.build("1", night: 1, base: nil)
        _ = try publish("1")
        let two = try nights.build("2", night: 2, base: channel)
        _ = try publish("2")
        return (one, two)
    }

    /// Three nights published into a folder channel, each following the channel's current release.
    private func threeNights() throws -> (PackagedArtifact, PackagedArtifact, PackagedArtifact) {
        let (one, two) = try twoNightsPublished()
        let three = try nights.build("3", night: 3, base: channel)
        let published = try publish("3")
        #expect(published.deltas.map(\.fromDataVersion) == [2, 1])
        return (one, two, three)
    }

    @Test func theThirdNightHasAOneHopAndAComposedDeltaThatEachGiveIt() throws {
        let (one, two, three) = try threeNights()
        #expect(one.deltas.isEmpty && one.manifest.values["deltas"] == nil, "a first release follows nothing")
        #expect(two.deltas.map(\.fromDataVersion) == [1])
        #expect(three.deltas.map(\.fromDataVersion) == [2, 1] && three.omittedDeltas.isEmpty, "\(three.omittedDeltas)")
        let manifest = try currentManifest()
        #expect(manifest.deltas == three.deltas, "the published manifest lists them")
        let target = try #require(manifest.values["contentDigest"]?.stringValue)
        for (entry, base) in zip(manifest.deltas, [two, one]) {
            #expect(entry.fileName == "postcodes-from-\(entry.fromDataVersion).delta.gz")
            #expect(entry.fromContentDigest == base.manifest.values["contentDigest"]?.stringValue)
            #expect(entry.fromStoreSHA256 == base.manifest.store?.sha256)
            #expect(entry.toContentDigest == target)
            #expect(Double(entry.bytes) < 0.5 * Double(three.gzip.outputBytes))
            // What an app holding release M does: its store, the published delta, one transaction.
            let published = channel + "/" + ReleasePointer.deltaPath(sha256: entry.sha256)
            #expect(try FileDigest(of: published) == FileDigest(bytes: entry.bytes, sha256: entry.sha256))
            let result = directory.path("applied-from-\(entry.fromDataVersion).sqlite")
            let metadata = try DeltaApplier.apply(
                try DeltaReader.read(published), to: try publishedStore(entry.fromDataVersion), output: result)
            #expect(metadata.contentDigest == target && metadata.dataVersion == 3)
            #expect(try storedDigest(result) == target)
        }
        #expect(try nights.deltaFiles("3") == ["postcodes-from-1.delta.gz", "postcodes-from-2.delta.gz"])

        // The same base (now release 2's folder, its deltas beside its manifest) and input give the same bytes.
        let again = try nights.build("3-again", night: 3, base: directory.path("out-2/manifest.json"))
        #expect(again.deltas == three.deltas)
    }

    /// Rebuilding the current release (its data version again, following the channel) lists no delta
    /// from itself but publishes the base's deltas again, composed with nothing changed.
    @Test func aRebuildOfTheCurrentReleaseKeepsItsDeltas() throws {
        let (_, _, three) = try threeNights()
        let again = try nights.build("3-again", night: 3, base: channel)
        #expect(again.deltas == three.deltas, "\(again.omittedDeltas)")
        #expect(again.omittedDeltas.isEmpty)
    }

    @Test func deltasZeroGivesNoneAndOneOnlyTheOneHop() throws {
        try twoNightsPublished()
        let none = try nights.build("3", night: 3, base: channel, deltas: 0)
        #expect(none.deltas.isEmpty && none.manifest.values["deltas"] == nil && none.omittedDeltas.isEmpty)
        #expect(try nights.deltaFiles("3").isEmpty)
        let one = try nights.build("3", night: 3, base: channel, deltas: 1)
        #expect(one.deltas.map(\.fromDataVersion) == [2])
        #expect(try nights.deltaFiles("3") == ["postcodes-from-2.delta.gz"])
        // A rebuild into the folder removes the delta files its manifest no longer lists.
        let all = try nights.build("3", night: 3, base: channel)
        #expect(all.deltas.map(\.fromDataVersion) == [2, 1])
        _ = try nights.build("3", night: 3, base: channel, deltas: 1)
        #expect(try nights.deltaFiles("3") == ["postcodes-from-2.delta.gz"])
    }

    @Test func theSizeRuleLeavesOutADeltaOverItsShareAndSaysWhy() throws {
        try twoNightsPublished()
        let packaged = try nights.build("3", night: 3, base: channel, maxShare: 0.0001)
        #expect(packaged.deltas.isEmpty && packaged.manifest.values["deltas"] == nil)
        #expect(packaged.omittedDeltas.map(\.fromDataVersion) == [2, 1])
        #expect(
            packaged.omittedDeltas.allSatisfy { $0.reason.contains("of the artifact, not under the 0.01% the size rule allows") },
            "\(packaged.omittedDeltas)")
        #expect(try nights.deltaFiles("3").isEmpty, "dropped deltas are deleted")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path("out-3")).allSatisfy { !$0.hasPrefix(".") },
            "no temporary file left")
    }

    @Test func aMissingOrDamagedPreviousDeltaIsLeftOutWithTheReasonNotTheBuild() throws {
        let (_, two) = try twoNightsPublished()
        let published = channel + "/" + ReleasePointer.deltaPath(sha256: try #require(two.deltas.first).sha256)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: published))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: published)
        try (bytes.dropLast() + Data([bytes.last! ^ 0xFF])).write(to: URL(fileURLWithPath: published))
        let damaged = try nights.build("3", night: 3, base: channel)
        #expect(damaged.deltas.map(\.fromDataVersion) == [2])
        let reason = try #require(damaged.omittedDeltas.first { $0.fromDataVersion == 1 }).reason
        #expect(reason.contains(published) && reason.contains("SHA-256") && reason.contains("full artifact"), "\(reason)")

        try FileManager.default.removeItem(atPath: published)
        let missing = try nights.build("3", night: 3, base: channel)
        #expect(missing.deltas.map(\.fromDataVersion) == [2])
        #expect(
            missing.omittedDeltas.contains { $0.fromDataVersion == 1 && $0.reason.contains("\(published) is missing") },
            "\(missing.omittedDeltas)")
    }

    @Test func aBareStoreAsBaseGivesTheOneHopDeltaOnly() throws {
        _ = try nights.build("1", night: 1, base: nil)
        let two = try nights.build("2", night: 2, base: directory.path("out-1/manifest.json"))
        #expect(two.deltas.map(\.fromDataVersion) == [1])
        let store = directory.path("out-2/postcodes.sqlite")
        let three = try nights.build("3", night: 3, base: store)
        #expect(three.deltas.map(\.fromDataVersion) == [2], "a store has no deltas list")
        #expect(three.deltas.first?.fromStoreSHA256 == two.manifest.store?.sha256)
        #expect(three.deltas.first?.fromStoreSHA256 == (try FileDigest(of: store)).sha256)
    }

    @Test func theSignatureCoversTheDeltas() throws {
        let key = SigningKey.generate()
        _ = try nights.build("1", night: 1, base: nil, sign: key)
        let two = try nights.build("2", night: 2, base: directory.path("out-1/manifest.json"), sign: key)
        let trusted = try TrustedKey(pem: key.publicPEM, path: "key.pub")
        #expect(trusted.verify(two.manifest))
        let listed = try #require(two.manifest.values["deltas"]?.arrayValue)
        for (field, value) in [
            ("bytes", JSONValue.integer(1)), ("sha256", .string(String(repeating: "0", count: 64))), ("fromDataVersion", .integer(0)),
        ] {
            var (changed, entries) = (two.manifest, listed)
            var entry = try #require(entries[0].objectValue)
            entry[field] = value
            entries[0] = .object(entry)
            changed.values["deltas"] = .array(entries)
            #expect(!trusted.verify(changed), "a changed \(field) breaks the signature")
        }
    }
}
