import Foundation
import SeedStore
import SeedTestSupport
import Testing

@testable import SeedPipeline

#if canImport(Glibc)
    import Glibc
#endif

/// moto's S3-compatible server on 127.0.0.1 at a run-time port; stopped on deinit.
final class MotoServer {
    private let process = Process()
    let port: Int
    var endpoint: String { "http://127.0.0.1:\(port)" }

    init() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        probe.waitUntilExit()
        port =
            Int(
                String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)) ?? 0
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // moto's own launcher serves requests on threads, and then checks a conditional PUT
        // (If-None-Match, If-Match) and writes it in separate steps: two racing publishes could
        // both pass. S3 makes that check atomic, so the fake serves one request at a time, as
        // werkzeug does unthreaded (over HTTP/1.0, so no client holds the connection).
        process.arguments = [
            "python3", "-c",
            """
            from moto.server import DomainDispatcherApplication, create_backend_app
            from werkzeug.serving import run_simple
            run_simple("127.0.0.1", \(port), DomainDispatcherApplication(create_backend_app), threaded=False)
            """,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let transport = HTTPTransport(timeout: 2)
        for _ in 0..<100 {
            if (try? transport.send("GET", URL(string: endpoint + "/")!)) != nil { return }
            usleep(100_000)
        }
        throw NSError(domain: "MotoServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "moto_server did not start"])
    }

    deinit {
        // Never kill(0, …): a process that did not start has pid 0, and that would end the test run.
        if process.processIdentifier > 0 {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

extension MotoServer {
    /// A destination under `prefix` in the bucket `seeds`, through the project's own signer, for setting up and looking.
    func destination(prefix: String) -> S3Destination {
        S3Destination(
            endpoint: URL(string: endpoint)!, bucket: "seeds", prefix: prefix,
            signer: S3Signer(credentials: .init(accessKey: "AKIDTEST", secretKey: "secret"), region: "us-east-1"),
            transport: HTTPTransport())
    }

    /// Creates the bucket `seeds`.
    func createBucket() throws {
        let signer = S3Signer(credentials: .init(accessKey: "AKIDTEST", secretKey: "secret"), region: "us-east-1")
        let headers = signer.sign(
            method: "PUT", path: "/seeds", headers: ["Host": "127.0.0.1:\(port)"], payloadSHA256: S3Signer.emptyPayloadSHA256, date: Date())
        let response = try HTTPTransport().send("PUT", URL(string: endpoint + "/seeds")!, headers: headers, body: Data())
        #expect(response.status == 200)
    }
}

@Suite("Publishing to S3-compatible storage (moto)")
struct S3PublishTests {
    private let directory = TemporaryDirectory()
    private let environment = ["AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1"]

    private func release(_ version: Int64, sign key: SigningKey? = nil, postcodes: String? = nil) throws -> String {
        try packagedRelease(directory, version: version, postcodes: postcodes, sign: key)
    }

    private func publisher(_ server: MotoServer) -> Publisher {
        var publisher = Publisher()
        publisher.s3Endpoint = server.endpoint
        publisher.environment = environment
        publisher.transport = HTTPTransport(timeout: 10, retryPolicy: .init(attempts: 3, initialDelay: 0.01, maxDelay: 0.05))
        return publisher
    }

    private func destination(_ server: MotoServer) -> S3Destination { server.destination(prefix: "releases/postcodes/1/") }

    private func createBucket(_ server: MotoServer) throws { try server.createBucket() }

    @Test func roundTripNoOpAndKeep() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try createBucket(server)
        let first = try publisher(server).publish(try release(7), to: "s3://seeds/releases")
        #expect(first.outcome == .published && first.channel == "s3://seeds/releases/postcodes/1/")
        let s3 = destination(server)
        let pointer = try ReleasePointer(data: try #require(try s3.read("latest.json", maxBytes: 65_536)), source: "s3")
        #expect(pointer.dataVersion == 7)
        let manifest = try Manifest(data: try #require(try s3.read("manifests/7.json", maxBytes: 65_536)), path: "s3")
        let artifact = try #require(manifest.artifact)
        let stored = try #require(try s3.checksum(ReleasePointer.artifactPath(sha256: artifact.sha256)))
        #expect(stored.0 == artifact.bytes && stored.1 == artifact.sha256)
        #expect(try publisher(server).publish(try release(7), to: "s3://seeds/releases").outcome == .unchanged)

        _ = try publisher(server).publish(try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\n"), to: "s3://seeds/releases")
        var keeping = publisher(server)
        keeping.keep = 1
        let pruned = try keeping.publish(try release(9, postcodes: "postcode,county_code\nCT1 1AB,KEN\n"), to: "s3://seeds/releases")
        #expect(pruned.pruned.filter { $0.hasPrefix("manifests/") }.sorted() == ["manifests/7.json", "manifests/8.json"])
        #expect(try s3.list("manifests") == ["9.json"])
    }

    @Test func publicReadReleaseInstallsOverPlainHTTP() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try createBucket(server)
        var publisher = publisher(server)
        publisher.s3ACL = "public-read"
        let result = try publisher.publish(try release(7), to: "s3://seeds/releases")
        var installer = SeedInstaller()
        installer.now = { Date(timeIntervalSince1970: 1_700_000_000 + 86_400) }
        installer.allowUnsigned = true
        let installed = try installer.install(from: server.endpoint + "/seeds/releases/postcodes/1/", to: directory.path("app"))
        #expect(result.outcome == .published && installed.outcome == .installed && installed.dataVersion == 7)
    }

    /// Ready for a CDN in front: immutable objects cacheable for a year, latest.json revalidated
    /// (or kept for the seconds given), each with its content type.
    @Test func objectsCarryCacheControlAndContentType() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try createBucket(server)
        var publisher = publisher(server)
        publisher.s3ACL = "public-read"
        _ = try publisher.publish(try release(7), to: "s3://seeds/releases")
        let channel = server.endpoint + "/seeds/releases/postcodes/1/"
        let transport = HTTPTransport()
        func headers(_ path: String) throws -> (String?, String?) {
            let response = try transport.send("HEAD", URL(string: channel + path)!)
            #expect(response.status == 200, "\(path)")
            return (response.header("Cache-Control"), response.header("Content-Type"))
        }
        let manifest = try Manifest(data: try #require(try destination(server).read("manifests/7.json", maxBytes: 65_536)), path: "s3")
        #expect(try headers("latest.json") == ("no-cache", "application/json"))
        #expect(try headers("manifests/7.json") == ("public, max-age=31536000, immutable", "application/json"))
        #expect(
            try headers(ReleasePointer.artifactPath(sha256: try #require(manifest.artifact).sha256)) == (
                "public, max-age=31536000, immutable", "application/gzip"
            ))

        publisher.cachePolicy = CachePolicy(pointerMaxAge: 60)
        _ = try publisher.publish(try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\n"), to: "s3://seeds/releases")
        #expect(try headers("latest.json").0 == "public, max-age=60, must-revalidate")
    }

    @Test func immutableObjectsAreNeverReplaced() throws {
        let server = try MotoServer()
        defer { withExtendedLifetime(server) {} }
        try createBucket(server)
        let out = try release(7)
        let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")), path: "m")
        let other = directory.write("other.bin", "not the artifact")
        try destination(server).putImmutable(
            file: other, sha256: try FileDigest(of: other).sha256, at: ReleasePointer.artifactPath(sha256: manifest.artifact!.sha256))
        let error = #expect(throws: PublishError.self) { try publisher(server).publish(out, to: "s3://seeds/releases") }
        #expect(error?.message.contains("already exists with other bytes") == true)
        #expect(try destination(server).read("latest.json", maxBytes: 65_536) == nil, "no pointer was written")
    }

    @Test func missingCredentialsAreNamed() throws {
        var publisher = Publisher()
        publisher.environment = [:]
        let error = #expect(throws: PublishError.self) { try publisher.publish(try release(7), to: "s3://seeds/x") }
        #expect(error?.message.contains("AWS_ACCESS_KEY_ID") == true)
    }
}

/// A transfer error becomes a publish error that names the method and URL once.
@Test func publishErrorsNameTheURLOnce() {
    let error = PublishError(TransferError(.status(501), method: "MKCOL", url: "http://127.0.0.1:8765/pub/"))
    #expect(error.description.components(separatedBy: "http://127.0.0.1:8765/pub/").count == 2, "\(error.description)")
    #expect(
        error.description.hasPrefix("MKCOL http://127.0.0.1:8765/pub/ (HTTP 501): HTTP 501; the server does not accept MKCOL"),
        "\(error.description)")
}
