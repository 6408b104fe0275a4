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
        let compressed = compress(store: built.storePath, reading: built.storePath, progress: progress)
        return try commit(
            compressed.result.get(), metadata: built.metadata, storePath: built.storePath, deltas: .built(built.deltas),
            changes: built.changes, setDigest: built.setDigest)
    }

    /// Writes the manifest for an artifact compressed while the build synced its store
    /// (`SeedBuilder.build(_:progress:whileSyncing:)`): the artifact first, the manifest last.
    /// Throws the compression's error, if it failed, naming the store under its final name.
    public func package(_ built: BuiltStore, compressed: Compressed) throws -> PackagedArtifact {
        try commit(
            compressed.result.get(), metadata: built.metadata, storePath: built.storePath, deltas: .built(built.deltas),
            changes: built.changes, setDigest: built.setDigest)
    }

    /// Packages an existing store (after `inspect --set`, or to change the level or signature); the
    /// deltas the folder's manifest lists for this store's content stay listed.
    public func package(store storePath: String, progress: ((Int64, Int64) -> Void)? = nil) throws -> PackagedArtifact {
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: storePath))
        let compressed = compress(store: storePath, reading: storePath, progress: progress)
        return try commit(compressed.result.get(), metadata: metadata, storePath: storePath, deltas: .listed)
    }

    /// An artifact under its temporary name, or why it could not be written; the file is removed
    /// when this is released uncommitted.
    public final class Compressed: Sendable {
        let result: Result<Written, Error>

        struct Written {
            let temporary: String
            let artifactPath: String
            let gzip: GzipResult
        }

        init(_ result: Result<Written, Error>) {
            self.result = result
        }

        deinit {
            if case .success(let written) = result { unlink(written.temporary) }
        }
    }

    /// Compresses `source` (the store, or the build's temporary file holding it) into a temporary
    /// file beside `storePath`'s artifact; errors are kept, naming the store and artifact by their
    /// final names.
    public func compress(store storePath: String, reading source: String, progress: ((Int64, Int64) -> Void)? = nil) -> Compressed {
        Compressed(
            Result { () throws -> Compressed.Written in
                if StoreFile.isGzip(source) {
                    throw StoreError(.refused, path: storePath, "already compressed; give the .sqlite store")
                }
                let artifactPath = storePath + ".gz"
                let temporary = AtomicFile.temporaryPath(for: artifactPath)
                do {
                    let gzip = try ParallelGzip(level: compressionLevel, threads: threads).compress(
                        source, to: temporary, progress: progress)
                    return Compressed.Written(temporary: temporary, artifactPath: artifactPath, gzip: gzip)
                } catch let error as GzipError {
                    unlink(temporary)
                    // Name the artifact and the store, not their temporary files.
                    throw GzipError(
                        error.kind, path: error.path == temporary ? artifactPath : error.path == source ? storePath : error.path)
                } catch {
                    unlink(temporary)
                    throw error
                }
            })
    }

    /// - Parameter changes: the build's changes against its base, signed in the manifest; when a store is
    ///   packaged again, the folder's manifest's changes are kept if it is of the same content.
    private func commit(
        _ written: Compressed.Written, metadata: StoreMetadata, storePath: String, deltas source: DeltaSource, changes: ChangeReport? = nil,
        setDigest: String? = nil
    ) throws -> PackagedArtifact {
        let (temporary, artifactPath, gzip) = (written.temporary, written.artifactPath, written.gzip)
        let manifestPath = ((storePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(Manifest.fileName)
        let changesValue =
            changes?.manifestValue
            ?? (source.isListed ? Self.listedChanges(manifestPath: manifestPath, contentDigest: metadata.contentDigest) : nil)
        // Read before anything is replaced: the deltas the folder's manifest lists, to keep.
        let kept =
            source.isListed
            ? listedDeltas(manifestPath: manifestPath, contentDigest: metadata.contentDigest, storeSHA256: gzip.inputSHA256) : nil
        try AtomicFile.commit(temporary, to: artifactPath, mode: 0o444)
        let deltas = try kept ?? commitDeltas(source.pending, artifactBytes: gzip.outputBytes)

        var manifest = makeManifest(metadata, storePath: storePath, artifactPath: artifactPath, gzip: gzip)
        if !deltas.entries.isEmpty { manifest.values["deltas"] = .array(deltas.entries.map(\.jsonValue)) }
        if let changesValue { manifest.values[ChangeReport.manifestKey] = changesValue }
        // A store packaged again (no build at hand) is read whole for it.
        manifest.values[SetDigestStage.manifestKey] = .string(try setDigest ?? SetDigest.compute(of: storePath).description)
        // The store's own model (its seed_model), so an app can infer a migration before downloading.
        let (model, _, _) = try Migrator.embeddedModel(of: storePath)
        manifest.values["seedModel"] = try JSONValue(jsonText: String(decoding: model.canonicalJSON(), as: UTF8.self))
        try signingKey?.sign(&manifest)
        try writeAtomically(manifest.fileData, to: manifestPath, mode: 0o644)
        removeUnlistedDeltas(beside: manifestPath, dataset: manifest.dataset ?? "", listed: deltas.entries)
        return PackagedArtifact(
            artifactPath: artifactPath, manifestPath: manifestPath, manifest: manifest, gzip: gzip, deltas: deltas.entries,
            omittedDeltas: deltas.omitted)
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
            "generator": .object([
                "name": .string(String(generator.first ?? "seedbuild")), "version": .string(String(generator.last ?? "")),
            ]),
            "store": .object([
                "fileName": .string((storePath as NSString).lastPathComponent),
                "bytes": .integer(gzip.inputBytes), "sha256": .string(gzip.inputSHA256),
            ]),
            "artifact": .object([
                "fileName": .string((artifactPath as NSString).lastPathComponent), "encoding": "gzip",
                "bytes": .integer(gzip.outputBytes), "sha256": .string(gzip.outputSHA256),
                "segments": gzip.segments.jsonValue,
            ]),
        ]
        for key in Manifest.metadataKeys {
            values[key.manifest] = metadata[key.metadata]
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
    /// The deltas the manifest lists, each a file beside it.
    package var deltas: [Manifest.DeltaEntry] = []
    /// The deltas left out, and why: while building (a previous delta missing or damaged) or here (the size rule).
    public var omittedDeltas: [OmittedDelta] = []
}
