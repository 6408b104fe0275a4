import Foundation
import SeedStore

/// The compress stage: the built store → `<dataset>.sqlite.gz` and `manifest.json` beside it.
public struct Packager: Sendable {
    public var compressionLevel: Int32 = 6
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Days from creation until the manifest expires (apps refuse an expired one).
    public var expiresInDays = 14
    public var signingKey: SigningKey?
    /// The clock the manifest's `issued` and `expires` come from (tests set it).
    public var now: @Sendable () -> Date = { Date() }

    public init() {}

    /// Compresses the store and writes the manifest; the artifact first, the manifest last, each
    /// under a temporary name then renamed, so a manifest never names a missing artifact.
    public func package(_ built: BuiltStore, progress: ((Int64, Int64) -> Void)? = nil) throws -> PackagedArtifact {
        try package(store: built.storePath, metadata: built.metadata, progress: progress)
    }

    /// Packages an existing store (after `inspect --set`, or to change the level or signature).
    public func package(store storePath: String, progress: ((Int64, Int64) -> Void)? = nil) throws -> PackagedArtifact {
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: storePath))
        return try package(store: storePath, metadata: metadata, progress: progress)
    }

    private func package(store storePath: String, metadata: StoreMetadata, progress: ((Int64, Int64) -> Void)?) throws -> PackagedArtifact {
        if StoreFile.isGzip(storePath) {
            throw StoreError(.refused, path: storePath, "already compressed; give the .sqlite store")
        }
        let artifactPath = storePath + ".gz"
        let temporary = AtomicFile.temporaryPath(for: artifactPath)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let gzip: GzipResult
        do {
            gzip = try ParallelGzip(level: compressionLevel, threads: threads).compress(storePath, to: temporary, progress: progress)
        } catch {
            // Name the artifact, not its temporary file (which is removed).
            throw GzipError(error.kind, path: error.path == temporary ? artifactPath : error.path)
        }
        try AtomicFile.commit(temporary, to: artifactPath, mode: 0o444)

        var manifest = makeManifest(metadata, storePath: storePath, artifactPath: artifactPath, gzip: gzip)
        // The store's own model (its seed_model), so an app can infer a migration before downloading.
        let (model, _, _) = try Migrator.embeddedModel(of: storePath)
        manifest.values["seedModel"] = try JSONValue(jsonText: String(decoding: model.canonicalJSON(), as: UTF8.self))
        try signingKey?.sign(&manifest)
        let manifestPath = ((storePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(Manifest.fileName)
        try writeAtomically(manifest.fileData, to: manifestPath, mode: 0o644)
        return PackagedArtifact(artifactPath: artifactPath, manifestPath: manifestPath, manifest: manifest, gzip: gzip)
    }

    func makeManifest(_ metadata: StoreMetadata, storePath: String, artifactPath: String, gzip: GzipResult) -> Manifest {
        typealias Key = StoreMetadata.Key
        // The store and artifact are reproducible (build time from SOURCE_DATE_EPOCH); the manifest is
        // fresh: its expiry counts from when it is written, so a release never goes out already stale.
        let issuedDate = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let issued = ISO8601DateFormatter().string(from: issuedDate)
        let created = metadata[Key.buildTime]?.stringValue ?? issued
        let expires = ISO8601DateFormatter().string(from: issuedDate.addingTimeInterval(TimeInterval(expiresInDays) * 86_400))
        let generator = SeedBuilder.generator.split(separator: " ")
        var values: [String: JSONValue] = [
            "formatVersion": .integer(Manifest.formatVersion),
            "dataset": .string(((storePath as NSString).lastPathComponent as NSString).deletingPathExtension),
            "created": .string(created),
            "issued": .string(issued),
            "expires": .string(expires),
            "generator": .object(["name": .string(String(generator.first ?? "seedbuild")), "version": .string(String(generator.last ?? ""))]),
            "store": .object([
                "fileName": .string((storePath as NSString).lastPathComponent),
                "bytes": .integer(gzip.inputBytes), "sha256": .string(gzip.inputSHA256),
            ]),
            "artifact": .object([
                "fileName": .string((artifactPath as NSString).lastPathComponent), "encoding": "gzip",
                "bytes": .integer(gzip.outputBytes), "sha256": .string(gzip.outputSHA256),
            ]),
        ]
        for (key, manifestKey) in [
            (Key.dataVersion, "dataVersion"), (Key.modelName, "modelName"), (Key.modelVersionIdentifiers, "versionIdentifiers"),
            (Key.configuration, "configuration"), (Key.versionHashes, "versionHashes"), (Key.sources, "sources"),
            (Key.rowCounts, "rowCounts"), (Key.contentDigest, "contentDigest"), (Key.hashEncodingVersion, "hashEncodingVersion"),
        ] {
            values[manifestKey] = metadata[key]
        }
        return Manifest(values: values)
    }
}

/// What the compress stage wrote.
public struct PackagedArtifact: Sendable {
    public var artifactPath: String
    public var manifestPath: String
    public var manifest: Manifest
    public var gzip: GzipResult
}
