import Foundation
import SeedInstall
import SeedStore
import SeedTestSupport
import Testing

@testable import SeedPipeline

/// Publishing uploads each delta a release lists to `deltas/<sha256>.delta.gz` before its manifest,
/// refuses a release whose deltas are not as listed, and `--keep` prunes deltas with their releases.
@Suite("Publishing deltas")
struct PublishDeltaTests {
    private let directory = TemporaryDirectory()
    private var nights: DeltaNights { DeltaNights(directory: directory) }
    private let environment = ["AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1"]

    /// Four nights, each built following the one before (its output folder's manifest) and published
    /// with `--keep 2`; after each, every delta the release lists is read back from the channel through `read`.
    private func fourNights(
        to destination: String, _ publisher: Publisher, read: (String) throws -> Data?
    ) throws -> [Publisher.Result] {
        var publisher = publisher
        publisher.keep = 2
        var results: [Publisher.Result] = []
        for night in 1...4 {
            let base = night == 1 ? nil : directory.path("out-\(night - 1)/manifest.json")
            let packaged = try nights.build("\(night)", night: night, base: base)
            let result = try publisher.publish(directory.path("out-\(night)"), to: destination)
            #expect(result.deltas.map(\.fromDataVersion) == packaged.deltas.map(\.fromDataVersion), "the result lists the deltas uploaded")
            for entry in packaged.deltas {
                let path = ReleasePointer.deltaPath(sha256: entry.sha256)
                let published = try #require(try read(path), "night \(night): \(path)")
                #expect(Int64(published.count) == entry.bytes)
                #expect(result.deltas.contains { $0.url.hasSuffix(path) && $0.bytes == entry.bytes })
            }
            results.append(result)
        }
        return results
    }

    /// What `--keep 2` leaves after night 4: releases 3 and 4 with their deltas; night 2's delta (from 1), named by no kept manifest, is gone.
    private func expectPruned(_ results: [Publisher.Result], read: (String) throws -> Data?) throws {
        let manifests = try (1...4).map { night in
            try Manifest(data: Data(contentsOf: URL(fileURLWithPath: directory.path("out-\(night)/manifest.json"))), path: "\(night)")
        }
        #expect(manifests[3].deltas.map(\.fromDataVersion) == [3, 2, 1])
        let kept = Set((manifests[2].deltas + manifests[3].deltas).map { ReleasePointer.deltaPath(sha256: $0.sha256) })
        for entry in manifests[1].deltas {
            let path = ReleasePointer.deltaPath(sha256: entry.sha256)
            #expect(!kept.contains(path))
            #expect(try read(path) == nil, "night 2's delta went with its release")
            #expect(results[3].pruned.contains(path))
        }
        for path in kept { #expect(try read(path) != nil, "\(path) of a kept release stays") }
        #expect(try read("manifests/2.json") == nil && read("manifests/3.json") != nil)
    }

    @Test func folder() throws {
        let root = directory.path("dist")
        let read = { (path: String) in FileManager.default.contents(atPath: root + "/postcodes/1/" + path) }
        let results = try fourNights(to: root, Publisher(), read: read)
        try expectPruned(results, read: read)
    }

    @Test func webDAV() throws {
        let server = try NginxServer()
        defer { withExtendedLifetime(server) {} }
        let read = { (path: String) in FileManager.default.contents(atPath: server.root + "/postcodes/1/" + path) }
        let results = try fourNights(to: server.url, Publisher(), read: read)
        try expectPruned(results, read: read)
    }

    @Test func s3() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try server.createBucket()
        var publisher = Publisher()
        publisher.s3Endpoint = server.endpoint
        publisher.environment = environment
        publisher.s3ACL = "public-read"
        let s3 = server.destination(prefix: "releases/postcodes/1/")
        let read = { (path: String) in try s3.read(path, maxBytes: 1 << 24) }
        let results = try fourNights(to: "s3://seeds/releases", publisher, read: read)
        try expectPruned(results, read: read)
        // Immutable like the artifacts: a cache may keep a delta for a year.
        let delta = try #require(results[3].deltas.first)
        let start = try #require(delta.url.range(of: "deltas/")).lowerBound
        let path = String(delta.url[start...])
        let response = try HTTPTransport().send("HEAD", URL(string: server.endpoint + "/seeds/releases/postcodes/1/" + path)!)
        #expect(response.status == 200)
        #expect(
            response.header("Cache-Control") == CachePolicy.immutableCacheControl && response.header("Content-Type") == "application/gzip")
    }

    @Test func aListedDeltaMissingOrChangedLocallyRefusesThePublish() throws {
        let root = directory.path("dist")
        _ = try nights.build("1", night: 1, base: nil)
        _ = try Publisher().publish(directory.path("out-1"), to: root)
        let two = try nights.build("2", night: 2, base: directory.path("out-1/manifest.json"))
        let path = directory.path("out-2/" + (try #require(two.deltas.first)).fileName)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: path)
        let missing = #expect(throws: IngestError.self) { try Publisher().publish(directory.path("out-2"), to: root) }
        #expect(
            missing?.file == path && missing?.message.contains("missing: the manifest lists it as the delta from data version 1") == true,
            "\(String(describing: missing))")
        #expect(missing?.message.contains("build again") == true)
        try (bytes + Data("x".utf8)).write(to: URL(fileURLWithPath: path))
        let changed = #expect(throws: IngestError.self) { try Publisher().publish(directory.path("out-2"), to: root) }
        #expect(
            changed?.file == path && changed?.message.contains("the manifest says \(bytes.count) bytes with") == true,
            "\(String(describing: changed))")
        let pointer = try ReleasePointer(data: try Data(contentsOf: URL(fileURLWithPath: root + "/postcodes/1/latest.json")), source: root)
        #expect(pointer.dataVersion == 1, "the published release is untouched")
        #expect(!FileManager.default.fileExists(atPath: root + "/postcodes/1/deltas"), "nothing of release 2 was uploaded")
    }

    /// The same content published again refreshes the manifest; its deltas are already there and stay.
    @Test func aRefreshKeepsTheDeltas() throws {
        let root = directory.path("dist")
        _ = try nights.build("1", night: 1, base: nil)
        _ = try Publisher().publish(directory.path("out-1"), to: root)
        let two = try nights.build("2", night: 2, base: directory.path("out-1/manifest.json"))
        _ = try Publisher().publish(directory.path("out-2"), to: root)
        var later = Publisher()
        // Past half the manifest's lifetime: due for a refresh, and this manifest expires later.
        later.now = { Date().addingTimeInterval(8 * 86_400) }
        var packager = Packager()
        packager.now = later.now
        let refreshed = try packager.package(store: directory.path("out-2/postcodes.sqlite"))
        #expect(refreshed.deltas == two.deltas, "repackaging keeps the deltas listed for this store")
        let result = try later.publish(directory.path("out-2"), to: root)
        #expect(result.outcome == .refreshed)
        #expect(result.deltas.map(\.fromDataVersion) == [1])
        for entry in refreshed.deltas {
            #expect(FileManager.default.fileExists(atPath: root + "/postcodes/1/" + ReleasePointer.deltaPath(sha256: entry.sha256)))
        }
    }
}
