import Crypto
import Foundation
import SeedInstall
import SeedModel
import SeedPipeline
import SeedTestSupport
import Testing

@Suite("Installing only inside the app's folder, and only what is checked")
struct InstallFolderAttackTests {
    private let directory = TemporaryDirectory()
    private var app: String { directory.path("app") }
    private var channel: String { directory.path("dist/postcodes/1") }

    private func release(_ version: Int64, postcodes: String? = nil) throws -> String {
        try packagedRelease(directory, version: version, postcodes: postcodes)
    }

    private func installer(_ configure: (inout SeedInstaller) -> Void = { $0.allowUnsigned = true }) -> SeedInstaller {
        var installer = SeedInstaller()
        installer.now = { Date(timeIntervalSince1970: 1_700_000_000 + 86_400) }
        installer.transport = HTTPTransport(
            retryPolicy: .init(attempts: 2, initialDelay: 0.01, maxDelay: 0.05), limits: TransferLimits(idleTimeout: 10))
        configure(&installer)
        return installer
    }

    private func publishSevenInstallItThenPublish(_ versions: [Int64], to destination: String) throws {
        _ = try Publisher().publish(try release(7), to: destination)
        _ = try installer().install(from: directory.path("dist/postcodes/1"), to: app)
        for version in versions {
            _ = try Publisher().publish(
                try release(version, postcodes: "postcode,county_code\nCT1 1AA,KEN\nCT9 \(version)ZZ,EDI\n"), to: destination)
        }
    }

    private func rewriteManifest(_ version: Int64, _ change: (inout [String: JSONValue], inout ReleasePointer) -> Void) throws {
        try SeedInstallTests.rewriteManifest(in: channel, version: version, change)
    }

    private func expectSevenStillInstalled() throws {
        #expect(
            try String(contentsOfFile: app + "/postcodes.current", encoding: .utf8).contains("postcodes-7.sqlite"),
            "the old install is kept")
    }

    @Test func symlinkOrHardLinkAtThePartialFileIsNeverWrittenThrough() throws {
        let server = try NginxServer()
        defer { withExtendedLifetime(server) {} }
        _ = try Publisher().publish(try release(7), to: directory.path("dist"))
        _ = try installer().install(from: channel, to: app)
        _ = try Publisher().publish(try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\n"), to: server.url)
        _ = try Publisher().publish(try release(9, postcodes: "postcode,county_code\nCT1 1AB,KEN\n"), to: directory.path("dist9"))
        let victim = directory.write("victim.txt", "precious, outside the app's folder\n")
        let linked = directory.write("linked.txt", "also precious\n")
        let before = snapshot(directory.path, except: app)
        try FileManager.default.createSymbolicLink(atPath: app + "/.postcodes-8.sqlite.gz.part", withDestinationPath: victim)
        #expect(try installer().install(from: server.url + "postcodes/1/", to: app).dataVersion == 8)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious, outside the app's folder\n")

        #expect(link(linked, app + "/.postcodes-9.sqlite.gz.part") == 0)
        #expect(try installer().install(from: directory.path("dist9/postcodes/1"), to: app).dataVersion == 9)
        #expect(try String(contentsOfFile: linked, encoding: .utf8) == "also precious\n")
        #expect(snapshot(directory.path, except: app) == before, "nothing outside the folder changed")
        #expect(try installedFiles(app) == ["postcodes-9.sqlite", "postcodes.current"])
    }

    @Test func traversalInTheDatasetOrThePointerIsRefused() throws {
        try publishSevenInstallItThenPublish([8], to: directory.path("dist"))
        let before = snapshot(directory.path, except: app)
        try rewriteManifest(8) { manifest, pointer in
            manifest["dataset"] = "./../escaped"
            pointer.dataset = "./../escaped"
        }
        let error = #expect(throws: InstallError.self) { try installer().install(from: channel, to: app) }
        #expect(error?.message.contains("\"./../escaped\" is not a plain name") == true, "\(String(describing: error))")
        #expect(
            snapshot(directory.path, except: app).filter {
                $0.key != "dist/postcodes/1/latest.json" && !$0.key.hasPrefix("dist/postcodes/1/manifests")
            }
                == before.filter { $0.key != "dist/postcodes/1/latest.json" && !$0.key.hasPrefix("dist/postcodes/1/manifests") })
        #expect(!FileManager.default.fileExists(atPath: directory.path("escaped.current")))

        var pointer = try ReleasePointer(data: try Data(contentsOf: URL(fileURLWithPath: channel + "/latest.json")), source: "p")
        pointer.manifest = "../../../victim.json"
        try pointer.data.write(to: URL(fileURLWithPath: channel + "/latest.json"))
        let elsewhere = #expect(throws: InstallError.self) { try installer().install(from: channel, to: app) }
        #expect(elsewhere?.message.contains("names the manifest \"../../../victim.json\"") == true)
        try expectSevenStillInstalled()
    }

    @Test func unsignedNeedsConsentAndStillChecksWhatNeedsNoKey() throws {
        try publishSevenInstallItThenPublish([8], to: directory.path("dist"))
        let refused = #expect(throws: InstallError.self) { try installer { _ in }.install(from: channel, to: directory.path("fresh")) }
        #expect(refused?.kind == .signature && refused?.message.contains("--allow-unsigned") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.path("fresh")), "nothing written before refusing")

        // An expired release with its expiry removed.
        try rewriteManifest(8) { manifest, _ in manifest["expires"] = nil }
        #expect((#expect(throws: InstallError.self) { try installer().install(from: channel, to: app) })?.kind == .expired)

        // Another build's store swapped in, its sizes and hashes written into the manifest.
        let other = try Manifest(
            data: try Data(
                contentsOf: URL(fileURLWithPath: try release(9, postcodes: "postcode,county_code\nCT1 1AB,KEN\n") + "/manifest.json")),
            path: "m")
        _ = try Publisher().publish(directory.path("out-9"), to: directory.path("dist9"))
        let otherArtifact = ReleasePointer.artifactPath(sha256: other.artifact!.sha256)
        try FileManager.default.copyItem(
            atPath: directory.path("dist9/postcodes/1") + "/" + otherArtifact, toPath: channel + "/" + otherArtifact)
        try rewriteManifest(8) { manifest, _ in
            manifest["expires"] = "2023-12-01T00:00:00Z"
            manifest["artifact"] = other.values["artifact"]
            manifest["store"] = other.values["store"]
        }
        let swapped = #expect(throws: InstallError.self) { try installer().install(from: channel, to: app) }
        #expect(
            swapped?.message.contains("the store inside does not match its manifest (dataVersion: manifest 8, store 9;") == true,
            "\(String(describing: swapped))")
        #expect(
            swapped?.message.contains("rowCounts: manifest {\"County\":2,\"Postcode\":2}, store {\"County\":2,\"Postcode\":1}") == true,
            "\(String(describing: swapped))")
        #expect(swapped?.message.contains("; contentDigest") == true, "\(String(describing: swapped))")
        try expectSevenStillInstalled()
        #expect(try installedFiles(app) == ["postcodes-7.sqlite", "postcodes.current"])
    }

    /// Every field a manifest repeats from the store's metadata is checked, not only the hashes:
    /// a manifest whose row counts were edited (its pointer updated to match) is refused on install
    /// and fails verify.
    @Test func aManifestThatMisstatesTheStoreIsRefusedAndFailsVerify() throws {
        try publishSevenInstallItThenPublish([8], to: directory.path("dist"))
        try rewriteManifest(8) { manifest, _ in
            manifest["rowCounts"] = .object(["County": .integer(13), "Postcode": .integer(1)])
        }
        let refused = #expect(throws: InstallError.self) { try installer().install(from: channel, to: app) }
        #expect(
            refused?.message.contains("does not match its manifest (rowCounts: manifest {\"County\":13,\"Postcode\":1}, store {\"County\":")
                == true, "\(String(describing: refused))")
        try expectSevenStillInstalled()

        let built = directory.path("out-8")
        let manifestPath = built + "/manifest.json"
        var manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: manifestPath)), path: manifestPath)
        manifest.values["rowCounts"] = .object(["County": .integer(13), "Postcode": .integer(1)])
        try manifest.fileData.write(to: URL(fileURLWithPath: manifestPath))
        let report = try Verifier().verify(manifestPath, seedModels: [try ModelLoader.load(directory.path("model.json"))], userModels: [])
        #expect(!report.passed)
        #expect(
            report.checks.contains {
                $0.name == "manifest metadata" && !$0.passed && $0.detail.contains("rowCounts: manifest {\"County\":13")
            }, "\(report.text)")
    }

    /// A channel with nothing published says so with the server's status.
    @Test func anEmptyChannelOverHTTPNamesTheStatus() throws {
        let server = try NginxServer()
        defer { withExtendedLifetime(server) {} }
        let error = #expect(throws: InstallError.self) { try installer().install(from: server.url + "nothing/1/", to: app) }
        #expect(error?.kind == .noRelease)
        #expect(error?.message.contains("nothing/1/latest.json: HTTP 404, no release there") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: app))
    }

    @Test func completeOrLongerPartialIsCheckedNeverResumedPastItsEnd() throws {
        let server = try NginxServer()
        let proxy = try FaultProxy(upstream: server.url)
        defer { withExtendedLifetime((server, proxy)) {} }
        let seven = try release(7)
        _ = try Publisher().publish(seven, to: server.url)
        // Killed while inflating: the whole artifact is there.
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: seven + "/postcodes.sqlite.gz", toPath: app + "/.postcodes-7.sqlite.gz.part")
        #expect(try installer().install(from: proxy.url + "postcodes/1/", to: app).outcome == .installed)
        #expect(!proxy.requests.contains { $0.contains("/artifacts/") }, "verified where it lay: \(proxy.requests)")

        // Longer than stated (garbage after it): discarded and fetched whole, with no range past its end.
        let eight = try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\n")
        _ = try Publisher().publish(eight, to: server.url)
        var longer = try Data(contentsOf: URL(fileURLWithPath: eight + "/postcodes.sqlite.gz"))
        longer.append(Data(repeating: 0x41, count: 100))
        try longer.write(to: URL(fileURLWithPath: app + "/.postcodes-8.sqlite.gz.part"))
        #expect(try installer().install(from: proxy.url + "postcodes/1/", to: app).dataVersion == 8)
        let gets = proxy.requests.filter { $0.hasPrefix("GET") && $0.contains("/artifacts/") }
        #expect(gets.count == 1 && gets[0].hasSuffix("range=None"), "\(gets)")
        #expect(try installedFiles(app) == ["postcodes-8.sqlite", "postcodes.current"])
    }

    @Test func leftoversOfAKilledFetchAreRemovedByTheNext() throws {
        try publishSevenInstallItThenPublish([8], to: directory.path("dist"))
        for name in [".postcodes-6.sqlite.gz.part", ".postcodes-8.sqlite.tmp-0badf00d", ".postcodes.current.tmp-0badf00d"] {
            directory.write("app/" + name, "left by a killed fetch")
        }
        directory.write("app/.other-6.sqlite.gz.part", "another dataset's, not ours to remove")
        #expect(try installer().install(from: channel, to: app).dataVersion == 8)
        #expect(try installedFiles(app) == [".other-6.sqlite.gz.part", "postcodes-8.sqlite", "postcodes.current"])
    }
}
