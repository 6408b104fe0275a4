import Foundation
import SeedTestSupport
import Testing

@testable import SeedInstall

/// What a fetch asks the server for: each object once, so a phone pays one round trip per object and a
/// cache in front of the server pulls each object from the origin once.
@Suite("Requests per fetch", .serialized)
struct RequestCountTests {
    private let fixture = DeltaChannelFixture(directory: TemporaryDirectory())

    @Test func aFetchByDeltaAsksForThePointerTheManifestAndTheDeltaOnceEach() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        let (result, _) = try fixture.install(from: server.url + "postcodes/1/")
        #expect(result.via == .delta, "\(String(describing: result.fallback))")
        let paths = server.requests.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(paths.count == 3, "\(paths)")
        #expect(paths.allSatisfy { $0.hasPrefix("GET ") }, "no HEAD: \(paths)")
        #expect(paths.filter { $0.hasSuffix("/latest.json") }.count == 1)
        #expect(paths.filter { $0.contains("/manifests/") }.count == 1)
        #expect(paths.filter { $0.contains("/deltas/") }.count == 1)
        withExtendedLifetime(server) {}
    }

    @Test func aFullInstallAsksForTheArtifactOnce() throws {
        _ = try fixture.sevenInstalledEightWithDelta()
        try FileManager.default.removeItem(atPath: fixture.app)
        let server = try HostileServer(root: fixture.dist, target: "no-such-object", attack: .endless)
        let (result, _) = try fixture.install(from: server.url + "postcodes/1/")
        #expect(result.via == .full)
        let paths = server.requests.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(paths.filter { $0.contains("/artifacts/") }.count == 1, "\(paths)")
        #expect(paths.allSatisfy { $0.hasPrefix("GET ") }, "no HEAD: \(paths)")
        withExtendedLifetime(server) {}
    }
}
