import Foundation
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// A nightly job on unchanged data keeps its release installable; publishing never goes out stale.
@Suite("Fresh releases")
struct FreshReleaseTests {
    private let directory = TemporaryDirectory()
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private var channel: String { directory.path("dist/postcodes/1") }

    /// One night of the job at `day` days after `start`: build (SOURCE_DATE_EPOCH-style fixed build
    /// time, so the same bytes), package with the day's clock, publish with the day's clock.
    private func nightly(
        day: Double, dataVersion: Int64? = nil, sign key: SigningKey?, allowUnsigned: Bool = false
    ) throws -> Publisher.Result {
        let now = start.addingTimeInterval(day * 86_400)
        writeTestInputs(directory)
        let built = try buildTestStore(directory) { $0.dataVersion = dataVersion }
        var packager = Packager()
        packager.signingKey = key
        packager.now = { now }
        _ = try packager.package(built)
        var publisher = Publisher()
        publisher.now = { now }
        publisher.allowUnsigned = allowUnsigned
        return try publisher.publish(directory.path("out"), to: directory.path("dist"))
    }

    private func install(day: Double, into app: String, key: SigningKey) throws -> SeedInstaller.Result {
        var installer = SeedInstaller()
        installer.trustedKeys = [key.publicKey]
        installer.now = { [start] in start.addingTimeInterval(day * 86_400 + 3_600) }
        return try installer.install(from: channel, to: app)
    }

    @Test(arguments: [false, true])
    func thirtyNightsOnUnchangedDataStayInstallable(growingDataVersion: Bool) throws {
        let key = SigningKey.generate()
        var outcomes: [Int: Publisher.Result.Outcome] = [:]
        var artifacts = Set<String>()
        for day in 0..<30 {
            let version: Int64? = growingDataVersion ? 100 + Int64(day) : nil
            let result = try nightly(day: Double(day), dataVersion: version, sign: key)
            outcomes[day] = result.outcome
            // A new app installs from the channel every day, an hour after the job ran.
            let fresh = try install(day: Double(day), into: directory.path("apps/day-\(day)"), key: key)
            #expect(fresh.outcome == .installed, "day \(day)")
            let expires = try #require(fresh.manifest.expires)
            #expect(
                expires.timeIntervalSince(start.addingTimeInterval(Double(day) * 86_400)) >= 7 * 86_400,
                "day \(day): at least half the lifetime left")
            // An app that installed on day 0 keeps working: installed already, or a refresh under a new data version.
            let kept = try install(day: Double(day), into: directory.path("apps/long-lived"), key: key)
            #expect(
                kept.outcome == (day == 0 || (growingDataVersion && result.outcome == .refreshed) ? .installed : .alreadyInstalled),
                "day \(day)")
            artifacts.formUnion(try FileManager.default.contentsOfDirectory(atPath: channel + "/artifacts"))
        }
        // 14-day manifests: refreshed when fewer than 7 days are left, i.e. on days 8, 16 and 24.
        let refreshed = outcomes.filter { $0.value == .refreshed }.map(\.key).sorted()
        #expect(refreshed == [8, 16, 24])
        #expect(outcomes[0] == .published)
        #expect(outcomes.values.filter { $0 == .unchanged }.count == 26)
        // The store stamps its data version, so a refresh under a new data version is a new artifact;
        // under the same one the artifact is never uploaded again.
        #expect(artifacts.count == (growingDataVersion ? 4 : 1))
        let manifests = try FileManager.default.contentsOfDirectory(atPath: channel + "/manifests")
        #expect(manifests.count == 4, "\(manifests)")
    }

    @Test func signingLaterRefreshesAndUnsignedIntoSignedIsRefused() throws {
        let day0 = try nightly(day: 0, sign: nil)
        #expect(day0.outcome == .published)
        let key = SigningKey.generate()
        let signed = try nightly(day: 1, sign: key)
        #expect(signed.outcome == .refreshed)
        #expect(signed.reason?.contains("unsigned, this build's is signed by key \(key.publicKey.keyID)") == true)
        #expect(
            try install(day: 1, into: directory.path("app"), key: key).outcome == .installed,
            "the trusted key accepts the refreshed release")

        let unsigned = #expect(throws: IngestError.self) { try nightly(day: 2, sign: nil) }
        #expect(unsigned?.description.contains("is signed by key \(key.publicKey.keyID)") == true)
        #expect(unsigned?.description.contains("--allow-unsigned") == true)
        #expect(try nightly(day: 2, sign: nil, allowUnsigned: true).outcome == .refreshed, "told to")

        let other = SigningKey.generate()
        let rotated = try nightly(day: 3, sign: other)
        #expect(rotated.outcome == .refreshed && rotated.reason?.contains("signed by key \(other.publicKey.keyID)") == true)
        #expect(try nightly(day: 3.5, sign: other).outcome == .unchanged)
    }

    @Test func anExpiredManifestIsNeverPublished() throws {
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        var packager = Packager()
        packager.expiresInDays = 1
        packager.now = { [start] in start }
        _ = try packager.package(built)
        var publisher = Publisher()
        publisher.now = { [start] in start.addingTimeInterval(2 * 86_400) }
        let error = #expect(throws: IngestError.self) { try publisher.publish(directory.path("out"), to: directory.path("dist")) }
        #expect(error?.description.contains("expired at 2027-01-16T08:00:00Z") == true)
        #expect(!FileManager.default.fileExists(atPath: channel + "/latest.json"))
    }

    @Test func aStaleBuildFolderDoesNotPretendToRefresh() throws {
        _ = try nightly(day: 0, sign: nil)
        // Publishing the day-0 folder again on day 9: a refresh is due, but its manifest is no fresher.
        var publisher = Publisher()
        publisher.now = { [start] in start.addingTimeInterval(9 * 86_400) }
        let result = try publisher.publish(directory.path("out"), to: directory.path("dist"))
        #expect(result.outcome == .unchanged)
        #expect(result.reason?.contains("expires no later") == true)
    }
}
