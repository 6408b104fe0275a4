import Foundation
import SeedStore
import SeedTestSupport
import Testing

@testable import SeedPipeline

@Suite("Publishing to one channel is serialised", .serialized)
struct PublishRaceTests {
    private let directory = TemporaryDirectory()
    private let environment = ["AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1"]

    private func releases() throws -> (older: String, newer: String) {
        (
            try packagedRelease(directory, version: 200, postcodes: "postcode,county_code\nCT1 1AA,KEN\n"),
            try packagedRelease(directory, version: 201, postcodes: "postcode,county_code\nCT1 1AB,KEN\n")
        )
    }

    private func publisher(s3 server: MotoServer? = nil) -> Publisher {
        var publisher = Publisher()
        publisher.transport = HTTPTransport(
            retryPolicy: .init(attempts: 3, initialDelay: 0.01, maxDelay: 0.05), limits: TransferLimits(idleTimeout: 10))
        if let server {
            publisher.s3Endpoint = server.endpoint
            publisher.environment = environment
        }
        return publisher
    }

    /// 200 is uploaded, then 201 is published whole before 200's pointer is replaced: 200 must be refused.
    private func expectLateOlderPublishRefused(_ destination: String, _ base: Publisher, pointer: () throws -> Int64?) throws {
        let (older, newer) = try releases()
        var slow = base
        slow.beforePointerUpdate = { _ = try? base.publish(newer, to: destination) }
        let error = #expect(throws: PublishError.self) { try slow.publish(older, to: destination) }
        #expect(error?.message.contains("data version 200 is not newer than the published 201") == true, "\(String(describing: error))")
        #expect(try pointer() == 201, "latest.json still names the newer release")
    }

    /// Both at once, several times over, each on a fresh channel: latest.json always ends at 201.
    private func expectRacesEndAtTheNewer(_ destination: (Int) -> String, _ base: Publisher, pointer: (Int) throws -> Int64?) throws {
        let (older, newer) = try releases()
        for round in 0..<4 {
            let target = destination(round)
            let outcomes = RaceOutcomes()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                do {
                    _ = try base.publish(index == 0 ? newer : older, to: target)
                    outcomes.add("published")
                } catch let error as PublishError where error.message.contains("not newer than the published 201") {
                    outcomes.add("refused")
                } catch {
                    outcomes.add("\(error)")
                }
            }
            #expect(outcomes.values.allSatisfy { $0 == "published" || $0 == "refused" }, "\(outcomes.values)")
            #expect(try pointer(round) == 201, "round \(round): \(outcomes.values)")
        }
    }

    private func folderPointer(_ root: String) throws -> Int64? {
        let file = root + "/postcodes/1/latest.json"
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        return try ReleasePointer(data: data, source: file).dataVersion
    }

    @Test func folder() throws {
        try expectLateOlderPublishRefused(directory.path("dist"), publisher()) { try folderPointer(directory.path("dist")) }
        try expectRacesEndAtTheNewer({ directory.path("race-\($0)") }, publisher()) { try folderPointer(directory.path("race-\($0)")) }
    }

    @Test func webDAV() throws {
        let server = try NginxServer()
        defer { withExtendedLifetime(server) {} }
        try expectLateOlderPublishRefused(server.url, publisher()) { try folderPointer(server.root) }
        try expectRacesEndAtTheNewer({ server.url + "race-\($0)/" }, publisher()) { try folderPointer(server.root + "/race-\($0)") }
        #expect(!FileManager.default.fileExists(atPath: server.root + "/postcodes/1/.publish.lock"), "the lock is let go")
    }

    @Test func s3() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try createBucket(server)
        let s3 = destination(server, prefix: "releases/postcodes/1/")
        try expectLateOlderPublishRefused("s3://seeds/releases", publisher(s3: server)) {
            try s3.read("latest.json", maxBytes: 65_536).map { try ReleasePointer(data: $0, source: "s3").dataVersion }
        }
        try expectRacesEndAtTheNewer({ "s3://seeds/race-\($0)" }, publisher(s3: server)) {
            try destination(server, prefix: "race-\($0)/postcodes/1/").read("latest.json", maxBytes: 65_536).map {
                try ReleasePointer(data: $0, source: "s3").dataVersion
            }
        }
    }

    @Test func s3WritesOnlyOverTheETagItRead() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try createBucket(server)
        let s3 = destination(server, prefix: "conditional/")
        var seen: [String?] = []
        try s3.updatePointer { current in
            seen.append(current.map { String(decoding: $0, as: UTF8.self) })
            if seen.count == 1 {
                // Another publish replaces it between this one's read and write.
                try s3.updatePointer { _ in Data("201".utf8) }
                return Data("200".utf8)
            }
            return current == Data("201".utf8) ? nil : Data("200".utf8)
        }
        #expect(seen == [nil, "201"], "the write over a changed pointer was refused and decided again")
        #expect(try s3.read("latest.json", maxBytes: 100) == Data("201".utf8))
    }

    @Test func s3WithoutConditionalWritesTakesALockObject() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try createBucket(server)
        #expect(try destination(server, prefix: "probe/").probeConditionalWrites(), "moto honours If-Match")
        var s3 = destination(server, prefix: "locked/")
        s3.conditionalWrites = false
        s3.lockWait = 0.5
        try s3.updatePointer { _ in
            let held = try s3.read(".publish.lock", maxBytes: 4096)
            #expect(held != nil, "held while deciding")
            let error = #expect(throws: PublishError.self) { try s3.updatePointer { _ in Data("inner".utf8) } }
            #expect(
                error?.isTransient == true && error?.message.contains("another publish holds the channel's lock") == true,
                "\(String(describing: error))")
            return Data("outer".utf8)
        }
        #expect(try s3.read("latest.json", maxBytes: 100) == Data("outer".utf8))
        #expect(try s3.read(".publish.lock", maxBytes: 4096) == nil, "let go")
    }

    @Test func webDAVLockIsExclusiveAndAStaleOneIsTakenOver() throws {
        let server = try NginxServer()
        defer { withExtendedLifetime(server) {} }
        let base = URL(string: server.url + "locked/")!
        var dav = WebDAVDestination(
            base: base, transport: HTTPTransport(retryPolicy: .init(attempts: 2, initialDelay: 0.01, maxDelay: 0.05)))
        dav.lockWait = 0.5
        try dav.updatePointer { _ in
            let error = #expect(throws: PublishError.self) { try dav.updatePointer { _ in Data("inner".utf8) } }
            #expect(
                error?.isTransient == true && error?.message.contains("another publish holds the channel's lock") == true,
                "\(String(describing: error))")
            return Data("outer".utf8)
        }
        #expect(FileManager.default.contents(atPath: server.root + "/locked/latest.json") == Data("outer".utf8))

        // Left by a killed publish three minutes ago: taken over after the lease, once.
        let lock = server.root + "/locked/.publish.lock"
        try Data(#"{"owner": "killed-publish"}"#.utf8).write(to: URL(fileURLWithPath: lock))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-180)], ofItemAtPath: lock)
        try dav.updatePointer { _ in Data("after".utf8) }
        #expect(FileManager.default.contents(atPath: server.root + "/locked/latest.json") == Data("after".utf8))
        #expect(FileManager.default.fileExists(atPath: server.root + "/locked/.publish.lock.stale-killed-publish"))
        #expect(!FileManager.default.fileExists(atPath: lock))

        // A fresh lock by someone else is waited for, then reported.
        try Data(#"{"owner": "live-publish"}"#.utf8).write(to: URL(fileURLWithPath: lock))
        let busy = #expect(throws: PublishError.self) { try dav.updatePointer { _ in Data("never".utf8) } }
        #expect(busy?.status == 412 && busy?.message.contains("live-publish") == true)
        #expect(FileManager.default.contents(atPath: server.root + "/locked/latest.json") == Data("after".utf8))
    }

    private func destination(_ server: MotoServer, prefix: String) -> S3Destination { server.destination(prefix: prefix) }

    private func createBucket(_ server: MotoServer) throws { try server.createBucket() }
}

/// Outcomes collected from concurrent publishes.
private final class RaceOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func add(_ value: String) { lock.withLock { list.append(value) } }

    var values: [String] { lock.withLock { list } }
}
