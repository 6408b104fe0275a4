import Foundation
import SeedTestSupport
import Testing

@testable import SeedInstall
@testable import SeedPipeline

/// A delta that changes a table away from the release — a metadata table a Core Data app reads, not
/// only the entity tables the content digest covers — is refused by the set digest, and the release
/// comes whole by its artifact in the same fetch.
@Suite("A delta's result checked by the set digest", .serialized)
struct DeltaSetDigestTests {
    private let fixture = DeltaChannelFixture(directory: TemporaryDirectory())

    @Test(arguments: ["Z_PRIMARYKEY", "Z_MODELCACHE"])
    func aDeltaThatAlsoRewritesAMetadataTableIsRefused(table: String) throws {
        let entry = try fixture.sevenInstalledEightWithDelta()
        #expect(
            InstallRecord(directory: fixture.app, dataset: "postcodes").current?.setDigest != nil,
            "release 7's set digest recorded at install")
        var delta = try DeltaReader.read(fixture.channel + "/" + ReleasePointer.deltaPath(sha256: entry.sha256))
        let index = try #require(delta.header.tables.firstIndex { $0.name == table })
        let columns = delta.header.tables[index].columns
        let forged: [DeltaOperation] =
            table == "Z_PRIMARYKEY"
            // Entity 1's Z_MAX raised, as an attacker rewriting the delta from its documented format did.
            ? [
                .update(
                    table: index, key: [.integer(1)],
                    changes: [DeltaChange(column: try #require(columns.firstIndex(of: "Z_MAX")), value: .integer(999_999))])
            ]
            // The cached model replaced by other bytes (the table has no key: replaced whole).
            : [.clear(table: index), .insert(table: index, row: [.blob(Array("not the model".utf8))])]
        delta.operations = (delta.operations + forged).enumerated().sorted {
            ($0.element.table, $0.element.rank, $0.offset) < ($1.element.table, $1.element.rank, $1.offset)
        }.map(\.element)
        let file = fixture.directory.path("forged.delta.gz")
        try DeltaWriter.write(delta, to: file)
        let digest = try FileDigest(of: file)
        var lying = entry
        (lying.bytes, lying.sha256) = (digest.bytes, digest.sha256)
        try TestDeltas.publish(file, as: lying, in: fixture.channel)
        try rewriteManifest(in: fixture.channel, version: 8) { values, _ in values["deltas"] = .array([lying.jsonValue]) }

        let (result, _) = try fixture.install(from: fixture.channel)
        #expect(result.via == .full && result.fallback?.reason == .wrongResult, "\(String(describing: result.fallback))")
        #expect(
            result.fallback?.message.contains("the set digest after the delta is not the release's") == true,
            "\(String(describing: result.fallback?.message))")
        try fixture.expectEightInstalled(result)
    }

    @Test func anHonestDeltaPassesTheSetDigest() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        let (result, _) = try fixture.install(from: fixture.channel)
        #expect(result.via == .delta && result.fallback == nil, "\(String(describing: result.fallback))")
        let current = try #require(InstallRecord(directory: fixture.app, dataset: "postcodes").current)
        let manifest = try TestDeltas.manifest(in: fixture.directory.path("out-8"))
        #expect(current.setDigest == manifest.values["setDigest"]?.stringValue, "release 8's digest recorded for the next night")
        #expect(try SetDigest.compute(of: fixture.app + "/postcodes-8.sqlite").description == current.setDigest)
    }
}
