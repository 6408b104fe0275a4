import Crypto
import Foundation
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

@Suite("Artifact, manifest and signature")
struct ManifestTests {
    private let directory = TemporaryDirectory()

    private func package(_ configure: (inout Packager) -> Void = { _ in }) throws -> (BuiltStore, PackagedArtifact) {
        writeTestInputs(directory)
        let built = try buildTestStore(directory) { $0.dataVersion = 7 }
        var packager = Packager()
        packager.now = { Date(timeIntervalSince1970: 1_800_000_000.75) }
        configure(&packager)
        return (built, try packager.package(built))
    }

    /// The artifact compressed while the build syncs its store is the one compressing the finished
    /// store gives; meanwhile the store is under its temporary name only, and a failed compression
    /// still leaves the built store in place, its error naming the store by its final name.
    @Test func compressingWhileTheStoreSyncsGivesTheSameRelease() throws {
        writeTestInputs(directory)
        var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
        options.model = directory.path("model.json")
        var packager = Packager()
        packager.now = { Date(timeIntervalSince1970: 1_800_000_000) }
        var releases: [(artifact: Data, manifest: Data)] = []
        for overlapped in [false, true] {
            options.outputDirectory = directory.path(overlapped ? "overlapped" : "sequential")
            var (request, _) = try options.resolve(project: nil)
            request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
            let packaged: PackagedArtifact
            if overlapped {
                var compressed: Packager.Compressed?
                let built = try SeedBuilder().build(
                    request,
                    whileSyncing: { working in
                        #expect(working != request.storePath && FileManager.default.fileExists(atPath: working))
                        #expect(!FileManager.default.fileExists(atPath: request.storePath), "renamed into place only after the sync")
                        compressed = packager.compress(store: request.storePath, reading: working)
                    })
                packaged = try packager.package(built, compressed: try #require(compressed))
            } else {
                packaged = try packager.package(try SeedBuilder().build(request))
            }
            releases.append(
                (
                    try Data(contentsOf: URL(fileURLWithPath: packaged.artifactPath)),
                    try Data(contentsOf: URL(fileURLWithPath: packaged.manifestPath))
                ))
            let left = try FileManager.default.contentsOfDirectory(atPath: try #require(options.outputDirectory)).filter {
                $0 != ".seedbuild.lock"
            }
            #expect(left.sorted() == ["manifest.json", "postcodes.sqlite", "postcodes.sqlite.gz"], "no temporary file left")
        }
        #expect(releases[0].artifact == releases[1].artifact)
        #expect(releases[0].manifest == releases[1].manifest)

        // The file to compress cannot be read: the store is built all the same, the error names it.
        options.outputDirectory = directory.path("failing")
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        var compressed: Packager.Compressed?
        let built = try SeedBuilder().build(
            request,
            whileSyncing: { working in
                compressed = packager.compress(store: request.storePath, reading: working + ".missing")
            })
        #expect(FileManager.default.fileExists(atPath: built.storePath))
        let failure = #expect(throws: GzipError.self) { try packager.package(built, compressed: try #require(compressed)) }
        #expect(failure?.path == built.storePath, "named by the store's final name")
        #expect(!FileManager.default.fileExists(atPath: built.storePath + ".gz"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("failing/manifest.json")))
    }

    @Test func artifactAndManifestAgree() throws {
        let (built, packaged) = try package()
        #expect(packaged.artifactPath == directory.path("out/postcodes.sqlite.gz"))
        #expect(packaged.manifestPath == directory.path("out/manifest.json"))
        #expect(try shell("gzip -t '\(packaged.artifactPath)'").status == 0)
        let inflatedSHA = String(decoding: try shell("gzip -dc '\(packaged.artifactPath)' | sha256sum | cut -c1-64").output, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: packaged.manifestPath)), path: packaged.manifestPath)
        #expect(manifest == packaged.manifest)
        let store = try #require(manifest.store)
        #expect(store.fileName == "postcodes.sqlite")
        #expect(store.sha256 == inflatedSHA)
        #expect(store.bytes == Int64(try Data(contentsOf: URL(fileURLWithPath: built.storePath)).count))
        let artifact = try #require(manifest.artifact)
        let artifactData = try Data(contentsOf: URL(fileURLWithPath: packaged.artifactPath))
        #expect(artifact.fileName == "postcodes.sqlite.gz" && artifact.encoding == "gzip")
        #expect(artifact.bytes == Int64(artifactData.count))
        #expect(artifact.sha256 == Data(SHA256.hash(data: artifactData)).hexString)

        #expect(manifest.values["formatVersion"] == .integer(1))
        #expect(manifest.dataset == "postcodes")
        #expect(manifest.dataVersion == 7)
        #expect(manifest.values["modelName"] == "TestPostcodes")
        #expect(manifest.values["versionIdentifiers"] == .array(["1"]))
        #expect(manifest.configuration == "Seed")
        #expect(manifest.versionHashes == built.metadata.versionHashes)
        #expect(manifest.values["created"] == "2023-11-14T22:13:20Z", "the build time (SOURCE_DATE_EPOCH-style)")
        #expect(manifest.values["issued"] == "2027-01-15T08:00:00Z", "when the manifest was written")
        #expect(manifest.values["expires"] == "2027-01-29T08:00:00Z", "14 days from writing, never from the build time")
        #expect(manifest.values["generator"] == .object(["name": "seedbuild", "version": "0.1.0"]))
        #expect(manifest.values["sources"] == built.metadata[StoreMetadata.Key.sources])
        #expect(manifest.values["rowCounts"] == .object(["County": 2, "Postcode": 3]))
        #expect(manifest.values["contentDigest"]?.stringValue == built.metadata.contentDigest)
        #expect(manifest.values["seedModel"]?.objectValue?["name"] == "TestPostcodes")
        #expect(manifest.values["signature"] == nil)
    }

    @Test func expiryIsConfigurable() throws {
        let (_, packaged) = try package { $0.expiresInDays = 1 }
        #expect(packaged.manifest.values["expires"] == "2027-01-16T08:00:00Z")
    }

    @Test func signedManifestVerifiesAndAnyChangeBreaksIt() throws {
        let key = SigningKey.generate()
        let (_, packaged) = try package { $0.signingKey = key }
        let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: packaged.manifestPath)), path: "m")
        let signature = try #require(manifest.values["signature"]?.objectValue)
        #expect(signature["algorithm"] == "Ed25519")
        #expect(signature["keyId"]?.stringValue == key.publicKey.keyID)
        #expect(key.publicKey.keyID.count == 16)
        #expect(key.publicKey.verify(manifest))
        #expect(!SigningKey.generate().publicKey.verify(manifest), "another key")

        // A one-byte change in the file: 7 → 8.
        let text = try String(contentsOfFile: packaged.manifestPath, encoding: .utf8)
        let tampered = text.replacingOccurrences(of: "\"dataVersion\" : 7", with: "\"dataVersion\" : 8")
        #expect(tampered != text)
        #expect(!key.publicKey.verify(try Manifest(data: Data(tampered.utf8), path: "m")))
    }

    @Test func keysRoundTripThroughPEMFilesAndOpenSSLAgrees() throws {
        let key = SigningKey.generate()
        let paths = try key.write(to: directory.path("keys"))
        let mode = try FileManager.default.attributesOfItem(atPath: paths.privateKey)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(throws: IngestError.self) { try key.write(to: directory.path("keys")) }
        let loaded = try SigningKey.load(paths.privateKey)
        let trusted = try TrustedKey(pem: try String(contentsOfFile: paths.publicKey, encoding: .utf8), path: paths.publicKey)
        #expect(trusted.keyID == key.publicKey.keyID && loaded.publicKey == key.publicKey)

        var manifest = Manifest(values: ["formatVersion": 1, "dataset": "x", "note": .string("é \"q\" /\n")])
        try loaded.sign(&manifest)
        let bytes = directory.path("signed.bin")
        _ = FileManager.default.createFile(atPath: bytes, contents: Data(manifest.signedBytes))
        // OpenSSL reads our key files, and Ed25519 signatures are deterministic: the same bytes.
        let openssl = try shell("openssl pkeyutl -sign -rawin -inkey '\(paths.privateKey)' -in '\(bytes)' | base64 -w0")
        #expect(openssl.status == 0)
        #expect(String(decoding: openssl.output, as: UTF8.self) == manifest.values["signature"]?.objectValue?["value"]?.stringValue)
        let ours = directory.path("ours.sig")
        _ = FileManager.default.createFile(
            atPath: ours, contents: Data(base64Encoded: manifest.values["signature"]!.objectValue!["value"]!.stringValue!))
        #expect(
            try shell("openssl pkeyutl -verify -pubin -inkey '\(paths.publicKey)' -rawin -in '\(bytes)' -sigfile '\(ours)' >/dev/null")
                .status == 0)
        #expect(trusted.verify(manifest))
    }
}
