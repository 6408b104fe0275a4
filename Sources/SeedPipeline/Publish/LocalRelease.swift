import Foundation
import SeedStore

/// A build's output folder as the publisher takes it: the manifest, checked against its artifact and the clock.
struct LocalRelease {
    let manifestPath: String
    let manifest: Manifest
    let dataset: String
    let dataVersion: Int64
    let digest: String
    let modelVersion: String
    let artifactPath: String
    let artifactBytes: Int64
    let artifactSHA256: String
    /// The deltas the manifest lists, each checked against its file beside the manifest.
    let deltas: [(entry: Manifest.DeltaEntry, path: String)]

    init(_ outputDirectory: String, now: Date) throws {
        manifestPath = (outputDirectory as NSString).appendingPathComponent(Manifest.fileName)
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw IngestError(.missingInput, file: manifestPath, "no manifest; run seedbuild build first")
        }
        manifest = try Manifest(data: data, path: manifestPath)
        guard let dataset = manifest.dataset, let dataVersion = manifest.dataVersion, let artifact = manifest.artifact,
            let digest = manifest.values["contentDigest"]?.stringValue
        else { throw IngestError(.badData, file: manifestPath, "the manifest lacks dataset, dataVersion, artifact or contentDigest") }
        if let expires = manifest.expires, expires <= now {
            throw IngestError(
                .badData, file: manifestPath,
                "expired at \(ISO8601DateFormatter().string(from: expires)); apps would refuse it. Write a fresh manifest with seedbuild compress (or run the job again)"
            )
        }
        (self.dataset, self.dataVersion, self.digest) = (dataset, dataVersion, digest)
        artifactPath = (outputDirectory as NSString).appendingPathComponent(artifact.fileName)
        let file = try FileDigest(of: artifactPath)
        guard file.bytes == artifact.bytes, file.sha256 == artifact.sha256 else {
            throw IngestError(
                .badData, file: artifactPath,
                "\(file.bytes) bytes with SHA-256 \(file.sha256), the manifest says \(artifact.bytes) with \(artifact.sha256); rebuild before publishing"
            )
        }
        (artifactBytes, artifactSHA256) = (file.bytes, file.sha256)
        deltas = try Self.checkDeltas(manifest, in: outputDirectory, manifestPath: manifestPath)
        if let mismatch = try MatchingSet.storeMismatch(manifestPath: manifestPath, manifest: manifest) {
            throw IngestError(.badData, file: manifestPath, mismatch)
        }
        modelVersion = BaseRelease.modelVersion(
            identifiers: (manifest.values["versionIdentifiers"]?.arrayValue ?? []).compactMap(\.stringValue),
            versionHashes: manifest.versionHashes)
    }

    /// Every delta the manifest lists, found beside it with the bytes and SHA-256 it states.
    /// - Throws: ``IngestError`` naming the file: an entry that cannot be read, a missing or changed file.
    private static func checkDeltas(_ manifest: Manifest, in outputDirectory: String, manifestPath: String) throws -> [(
        entry: Manifest.DeltaEntry, path: String
    )] {
        let rebuild = "build again (seedbuild build, or the nightly job) so the manifest and its deltas match, then publish"
        let entries = manifest.deltas
        guard entries.count == manifest.values["deltas"]?.arrayValue?.count ?? 0 else {
            throw IngestError(.badData, file: manifestPath, "an entry of \"deltas\" lacks a field or has a wrong one; \(rebuild)")
        }
        return try entries.map { entry in
            guard PendingDeltas.isPlainFileName(entry.fileName), ReleaseNames.isSHA256(entry.sha256) else {
                throw IngestError(
                    .badData, file: manifestPath,
                    "the delta from \(entry.fromDataVersion) names \"\(entry.fileName)\" with SHA-256 \"\(entry.sha256)\", not a file beside the manifest and its checksum; \(rebuild)"
                )
            }
            let path = (outputDirectory as NSString).appendingPathComponent(entry.fileName)
            guard FileManager.default.fileExists(atPath: path) else {
                throw IngestError(
                    .missingInput, file: path,
                    "missing: the manifest lists it as the delta from data version \(entry.fromDataVersion); \(rebuild)")
            }
            let file = try FileDigest(of: path)
            guard file.matches(bytes: entry.bytes, sha256: entry.sha256) else {
                throw IngestError(.badData, file: path, "\(file.mismatch(bytes: entry.bytes, sha256: entry.sha256)); \(rebuild)")
            }
            return (entry, path)
        }
    }
}
