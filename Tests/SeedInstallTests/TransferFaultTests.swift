import Foundation
import SeedInstall
import SeedPipeline
import SeedTestSupport
import Testing

@Suite("Publishing and fetching through failures")
struct TransferFaultTests {
    private let directory = TemporaryDirectory()
    private let fast = HTTPTransport(timeout: 10, retryPolicy: .init(attempts: 5, initialDelay: 0.01, maxDelay: 0.05))

    private func release(_ version: Int64, sign key: SigningKey? = nil, postcodes: String? = nil) throws -> String {
        try packagedRelease(directory, version: version, postcodes: postcodes, sign: key)
    }

    private func publisher() -> Publisher {
        var publisher = Publisher()
        publisher.transport = fast
        return publisher
    }

    private func installer() -> SeedInstaller {
        var installer = SeedInstaller()
        installer.transport = fast
        installer.now = { Date(timeIntervalSince1970: 1_700_000_000 + 86_400) }
        installer.allowUnsigned = true
        return installer
    }

    @Test func serviceUnavailableTwiceThenSuccess() throws {
        let server = try NginxServer()
        let proxy = try FaultProxy(upstream: server.url, failFirst: 2)
        defer { withExtendedLifetime((server, proxy)) {} }
        let result = try publisher().publish(try release(7), to: proxy.url)
        #expect(result.outcome == .published)
        #expect(
            proxy.requests.prefix(3).allSatisfy { $0.hasPrefix("GET /postcodes/1/latest.json") }, "the first request was tried three times")
        #expect(try installer().install(from: proxy.url + "postcodes/1/", to: directory.path("app")).outcome == .installed)
    }

    @Test func permanentErrorsAreNotRetried() throws {
        let server = try NginxServer()
        let proxy = try FaultProxy(upstream: server.url, failFirst: 100, status: 403)
        defer { withExtendedLifetime((server, proxy)) {} }
        let error = #expect(throws: PublishError.self) { try publisher().publish(try release(7), to: proxy.url) }
        #expect(error?.status == 403 && error?.isTransient == false)
        #expect(proxy.requests.count == 1)
    }

    @Test func droppedDownloadResumesWithRange() throws {
        let server = try NginxServer()
        _ = try publisher().publish(try release(7), to: server.url)
        let proxy = try FaultProxy(upstream: server.url, dropGets: 1)
        defer { withExtendedLifetime((server, proxy)) {} }
        let app = directory.path("app")
        let result = try installer().install(from: proxy.url + "postcodes/1/", to: app)
        #expect(result.outcome == .installed)
        let gets = proxy.requests.filter { $0.hasPrefix("GET /postcodes/1/artifacts/") }
        #expect(gets.count == 2)
        #expect(gets.last?.contains("range=bytes=") == true, "the second GET asked for the rest only: \(gets)")
    }

    @Test func droppedUploadLeavesTheOldReleaseAndInstallation() throws {
        let server = try NginxServer()
        _ = try publisher().publish(try release(7), to: server.url)
        let app = directory.path("app")
        _ = try installer().install(from: server.url + "postcodes/1/", to: app)
        let proxy = try FaultProxy(upstream: server.url, dropPuts: 100)
        defer { withExtendedLifetime((server, proxy)) {} }
        let newer = try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\n")
        let error = #expect(throws: PublishError.self) { try publisher().publish(newer, to: proxy.url) }
        #expect(error?.isTransient == true && error?.method == "PUT")
        let pointer = try ReleasePointer(
            data: try Data(contentsOf: URL(fileURLWithPath: server.root + "/postcodes/1/latest.json")), source: "p")
        #expect(pointer.dataVersion == 7, "latest.json still names the old release")
        let again = try installer().install(from: server.url + "postcodes/1/", to: app)
        #expect(again.outcome == .alreadyInstalled && again.dataVersion == 7)
    }
}
