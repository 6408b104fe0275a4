import Crypto
import Foundation
import SeedInstall
import SeedModel
import SeedPipeline
import SeedTestSupport
import Testing

@Suite("Publishing and fetching releases")
struct PublishFetchTests {
    private let directory = TemporaryDirectory()

    private func release(_ version: Int64, sign key: SigningKey? = nil, postcodes: String? = nil) throws -> String {
        try packagedRelease(directory, version: version, postcodes: postcodes, sign: key)
    }

    private var channel: String { directory.path("dist/postcodes/1") }
    private var app: String { directory.path("app") }

    private func installer(_ configure: (inout SeedInstaller) -> Void = { _ in }) -> SeedInstaller {
        var installer = SeedInstaller()
        // The test releases are built at 2023-11-14 (SOURCE_DATE_EPOCH-style), but their manifests
        // expire 14 days after they are written (now): a day later they install.
        installer.now = { Date().addingTimeInterval(86_400) }
        installer.allowUnsigned = true
        configure(&installer)
        return installer
    }

    @Test func folderRoundTripAndNoOpRepublish() throws {
        let out = try release(7)
        let published = try Publisher().publish(out, to: directory.path("dist"))
        #expect(published.outcome == .published && published.dataVersion == 7)
        let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")), path: "m")
        let sha = try #require(manifest.artifact?.sha256)
        for path in ["latest.json", "manifests/7.json", "artifacts/\(sha).sqlite.gz"] {
            #expect(FileManager.default.fileExists(atPath: channel + "/" + path), "\(path)")
        }
        #expect(try Publisher().publish(out, to: "file://" + directory.path("dist")).outcome == .unchanged)

        let model = try ModelLoader.load(directory.path("model.json"))
        let result = try installer { $0.model = model }.install(from: "file://" + channel + "/", to: app)
        #expect(result.outcome == .installed && result.storePath == app + "/postcodes-7.sqlite")
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: result.storePath))
        #expect(metadata.contentDigest == manifest.values["contentDigest"]?.stringValue)
        let current = try String(contentsOfFile: app + "/postcodes.current", encoding: .utf8)
        #expect(current.contains("\"store\" : \"postcodes-7.sqlite\""))
        #expect(try installer().install(from: channel + "/latest.json", to: app).outcome == .alreadyInstalled)
        #expect(try installedFiles(app) == ["postcodes-7.sqlite", "postcodes.current"])
    }

    @Test func newerReleaseReplacesOlderAndRollbackIsRefused() throws {
        _ = try Publisher().publish(try release(7), to: directory.path("dist"))
        _ = try installer().install(from: channel, to: app)
        let newer = try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\nCT9 9ZZ,EDI\n")
        #expect(try Publisher().publish(newer, to: directory.path("dist")).outcome == .published)
        #expect(try installer().install(from: channel, to: app).dataVersion == 8)
        #expect(try installedFiles(app) == ["postcodes-8.sqlite", "postcodes.current"], "the old store goes after the switch")

        // Publishing an older data version is refused; so is installing one.
        let older = try release(6, postcodes: "postcode,county_code\nCT1 1AB,KEN\n")
        let error = #expect(throws: PublishError.self) { try Publisher().publish(older, to: directory.path("dist")) }
        #expect(error?.message.contains("not newer than the published 8") == true)
        _ = try Publisher().publish(older, to: directory.path("old-dist"))
        let rollback = #expect(throws: InstallError.self) { try installer().install(from: directory.path("old-dist/postcodes/1"), to: app) }
        #expect(rollback?.kind == .rollback)
        #expect(try String(contentsOfFile: app + "/postcodes.current", encoding: .utf8).contains("postcodes-8.sqlite"))
    }

    @Test func tamperingIsRefusedAndTheInstalledSeedStays() throws {
        let key = SigningKey.generate()
        _ = try Publisher().publish(try release(7, sign: key), to: directory.path("dist"))
        let trusted = installer { $0.trustedKeys = [key.publicKey] }
        _ = try trusted.install(from: channel, to: app)
        _ = try Publisher().publish(try release(8, sign: key, postcodes: "postcode,county_code\nCT1 1AA,KEN\n"), to: directory.path("dist"))

        // A flipped byte in the artifact.
        let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: channel + "/manifests/8.json")), path: "m")
        let artifact = channel + "/artifacts/\(manifest.artifact!.sha256).sqlite.gz"
        let good = try Data(contentsOf: URL(fileURLWithPath: artifact))
        var bad = good
        bad[bad.count / 2] ^= 1
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: artifact)
        try bad.write(to: URL(fileURLWithPath: artifact))
        // Read where it lies (a folder channel): inflating may fail first, the message still names the checksum.
        let flipped = #expect(throws: InstallError.self) { try trusted.install(from: channel, to: app) }
        #expect(
            flipped?.kind == .checksum && flipped?.message.contains("the artifact was changed or damaged") == true,
            "\(String(describing: flipped))")
        try (good + Data([0])).write(to: URL(fileURLWithPath: artifact))
        let longer = #expect(throws: InstallError.self) { try trusted.install(from: channel, to: app) }
        #expect(
            longer?.kind == .checksum && longer?.message.contains("\(good.count + 1) bytes, the manifest says \(good.count) bytes") == true,
            "\(String(describing: longer))")
        try good.write(to: URL(fileURLWithPath: artifact))

        // A changed manifest no longer matches latest.json.
        let manifestFile = channel + "/manifests/8.json"
        let text = try String(contentsOfFile: manifestFile, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: manifestFile)
        try text.replacingOccurrences(of: "\"dataVersion\" : 8", with: "\"dataVersion\" : 9").write(
            toFile: manifestFile, atomically: true, encoding: .utf8)
        #expect((#expect(throws: InstallError.self) { try trusted.install(from: channel, to: app) })?.kind == .checksum)
        try text.write(toFile: manifestFile, atomically: true, encoding: .utf8)

        // Signed by another key.
        let stranger = installer { $0.trustedKeys = [SigningKey.generate().publicKey] }
        #expect((#expect(throws: InstallError.self) { try stranger.install(from: channel, to: app) })?.kind == .signature)

        // Expired.
        let later = installer { $0.now = { Date().addingTimeInterval(15 * 86_400) } }
        #expect((#expect(throws: InstallError.self) { try later.install(from: channel, to: app) })?.kind == .expired)

        #expect(
            try String(contentsOfFile: app + "/postcodes.current", encoding: .utf8).contains("postcodes-7.sqlite"), "still the old seed")
        #expect(try trusted.install(from: channel, to: app).dataVersion == 8, "the untouched release installs")
    }

    @Test func oversizedBodiesAndGzipBombsAreRefused() throws {
        _ = try Publisher().publish(try release(7), to: directory.path("dist"))
        // A manifest whose stated store size is smaller than what the artifact inflates to.
        try rewriteManifest(in: channel, version: 7) { values, _ in
            var store = values["store"]!.objectValue!
            store["bytes"] = 4096
            values["store"] = .object(store)
        }
        let pointerFile = channel + "/latest.json"
        let bomb = #expect(throws: InstallError.self) { try installer().install(from: channel, to: app) }
        #expect(bomb?.message.contains("more than 4096 bytes") == true)

        try Data(repeating: 0x20, count: 70_000).write(to: URL(fileURLWithPath: pointerFile))
        let big = #expect(throws: TransferError.self) { try installer().install(from: channel, to: app) }
        #expect(big?.kind == .tooLarge(limit: 65_536))
        #expect(!FileManager.default.fileExists(atPath: app + "/postcodes.current"))
    }

    /// The artifact is the one the manifest names, but the store it inflates to is not: refused with
    /// both SHA-256s (read back from the inflated file beside quick_check), nothing installed.
    @Test func aStoreOtherThanTheManifestSaysIsRefusedNamingBothHashes() throws {
        _ = try Publisher().publish(try release(7), to: directory.path("dist"))
        var real = ""
        try rewriteManifest(in: channel, version: 7) { values, _ in
            var store = values["store"]!.objectValue!
            real = store["sha256"]!.stringValue!
            store["sha256"] = .string(String(repeating: "0", count: 64))
            values["store"] = .object(store)
        }
        let refused = #expect(throws: InstallError.self) { try installer().install(from: channel, to: app) }
        #expect(refused?.kind == .checksum)
        #expect(
            refused?.message.contains("the inflated store has") == true
                && refused?.message.contains("with SHA-256 \(real), the manifest says") == true,
            "\(String(describing: refused))")
        #expect(!FileManager.default.fileExists(atPath: app + "/postcodes.current"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: app))?.filter { $0.contains(".sqlite") } ?? [] == [])
    }

    @Test func modelChecksBeforeDownloading() throws {
        _ = try Publisher().publish(try release(7), to: directory.path("dist"))
        var newer = try ModelLoader.load(directory.path("model.json"))
        newer.entities[0].attributes.append(Attribute(name: "extra", type: .string))
        let lightweight = try installer { $0.model = newer }.install(from: channel, to: directory.path("other-app"))
        #expect(lightweight.migration?.changes.map(\.kind) == [.addAttribute], "the plan comes from the model the manifest carries")

        var incompatible = try ModelLoader.load(directory.path("model.json"))
        incompatible.entities[0].attributes[0].type = .integer64
        let error = #expect(throws: InstallError.self) { try installer { $0.model = incompatible }.install(from: channel, to: app) }
        #expect(error?.kind == .model && error?.message.contains("County.code changed type from String to Integer 64") == true)
        let installed = (try? FileManager.default.contentsOfDirectory(atPath: app)) ?? []
        #expect(installed.isEmpty)
    }

    @Test func webDAVRoundTripWithResume() throws {
        let server = try NginxServer()
        defer { withExtendedLifetime(server) {} }
        let out = try release(7)
        let published = try Publisher().publish(out, to: server.url)
        #expect(published.outcome == .published)
        #expect(published.channel == server.url + "postcodes/1/")
        #expect(try Publisher().publish(out, to: server.url).outcome == .unchanged)
        #expect(FileManager.default.fileExists(atPath: server.root + "/postcodes/1/latest.json"))

        // A partial download left by an earlier attempt is resumed.
        let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")), path: "m")
        let artifact = try Data(contentsOf: URL(fileURLWithPath: out + "/postcodes.sqlite.gz"))
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        try artifact.prefix(artifact.count / 2).write(to: URL(fileURLWithPath: app + "/.postcodes-7.sqlite.gz.part"))
        let result = try installer().install(from: published.channel, to: app)
        #expect(result.outcome == .installed)
        #expect(
            try StoreMetadata.read(at: URL(fileURLWithPath: result.storePath)).contentDigest
                == manifest.values["contentDigest"]?.stringValue)
        #expect(!FileManager.default.fileExists(atPath: app + "/.postcodes-7.sqlite.gz.part"))

        // A newer release over WebDAV replaces latest.json; the old release's files stay valid.
        let newer = try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\n")
        _ = try Publisher().publish(newer, to: server.url)
        #expect(FileManager.default.fileExists(atPath: server.root + "/postcodes/1/manifests/7.json"))
        #expect(try installer().install(from: published.channel + "latest.json", to: app).dataVersion == 8)

        // --keep over WebDAV, which cannot list folders: latest.json's release list says what is there.
        var keeping = Publisher()
        keeping.keep = 1
        let pruned = try keeping.publish(try release(9, postcodes: "postcode,county_code\nCT1 1AB,KEN\n"), to: server.url)
        #expect(pruned.pruned.filter { $0.hasPrefix("manifests/") }.sorted() == ["manifests/7.json", "manifests/8.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.root + "/postcodes/1/manifests") == ["9.json"])
        let pointer = try ReleasePointer(
            data: try Data(contentsOf: URL(fileURLWithPath: server.root + "/postcodes/1/latest.json")), source: "p")
        #expect(pointer.releases == [9])
    }

    @Test func keepPrunesOldReleasesInFolders() throws {
        let dist = directory.path("dist")
        _ = try Publisher().publish(try release(7), to: dist)
        _ = try Publisher().publish(try release(8, postcodes: "postcode,county_code\nCT1 1AA,KEN\n"), to: dist)
        var publisher = Publisher()
        publisher.keep = 1
        let result = try publisher.publish(try release(9, postcodes: "postcode,county_code\nCT1 1AB,KEN\n"), to: dist)
        #expect(result.pruned.filter { $0.hasPrefix("manifests/") }.sorted() == ["manifests/7.json", "manifests/8.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: channel + "/manifests") == ["9.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: channel + "/artifacts").count == 1)
    }
}
