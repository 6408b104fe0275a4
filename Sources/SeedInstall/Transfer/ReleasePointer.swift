import Foundation

/// A channel's `latest.json`: the one mutable object, naming the current release's manifest.
///
/// ```json
/// {"formatVersion": 1, "dataset": "postcodes", "dataVersion": 202611221200,
///  "manifest": "manifests/202611221200.json", "manifestSHA256": "…", "contentDigest": "…",
///  "releases": [202611221200, 202611211200]}
/// ```
package struct ReleasePointer: Sendable, Equatable {
    /// The pointer's name at the channel's root.
    package static let fileName = "latest.json"
    /// The most bytes read of a pointer, and of a manifest: anything longer is refused.
    package static let maxBytes: Int64 = 64 * 1024

    /// The dataset's name.
    package var dataset: String
    /// The current release's data version.
    package var dataVersion: Int64
    /// The manifest's path relative to the channel.
    package var manifest: String
    /// The manifest file's SHA-256: installs refuse a manifest that does not match it.
    package var manifestSHA256: String
    /// The current release's content digest.
    package var contentDigest: String
    /// Data versions still published, newest first (for pruning where folders cannot be listed).
    package var releases: [Int64]

    /// A pointer to the release of `dataVersion`; `releases` defaults to that one alone.
    package init(
        dataset: String, dataVersion: Int64, manifest: String, manifestSHA256: String, contentDigest: String, releases: [Int64] = []
    ) {
        self.dataset = dataset
        self.dataVersion = dataVersion
        self.manifest = manifest
        self.manifestSHA256 = manifestSHA256
        self.contentDigest = contentDigest
        self.releases = releases.isEmpty ? [dataVersion] : releases
    }

    /// Parses `latest.json`.
    /// - Throws: ``StoreError`` (not a seed store) naming `source` when it is not a pointer.
    package init(data: Data, source: String) throws(StoreError) {
        guard let text = String(data: data, encoding: .utf8), let value = try? JSONValue(jsonText: text),
            let object = value.objectValue, let dataset = object["dataset"]?.stringValue,
            let version = object["dataVersion"]?.integerValue, let manifest = object["manifest"]?.stringValue,
            let sha = object["manifestSHA256"]?.stringValue, let digest = object["contentDigest"]?.stringValue
        else { throw StoreError(.notASeedStore, path: source, "not a seedbuild latest.json; give a release channel URL") }
        let releases = object["releases"]?.arrayValue?.compactMap(\.integerValue) ?? []
        self.init(
            dataset: dataset, dataVersion: version, manifest: manifest, manifestSHA256: sha, contentDigest: digest, releases: releases)
    }

    /// `artifacts/<sha256>.sqlite.gz`: artifacts are named by their checksum, so they never change.
    package static func artifactPath(sha256: String) -> String { "artifacts/\(sha256).sqlite.gz" }

    /// `deltas/<sha256>.delta.gz`: a delta, named by its checksum like an artifact (``Manifest/DeltaEntry``).
    package static func deltaPath(sha256: String) -> String { "deltas/\(sha256).delta.gz" }

    /// `manifests/<dataVersion>.json`: where a data version's first manifest is published.
    package static func manifestPath(dataVersion: Int64) -> String { "manifests/\(dataVersion).json" }

    /// Whether a pointer may name this manifest for its data version: ``manifestPath(dataVersion:)``, or
    /// a refreshed manifest of that data version, `manifests/<version>-<first 16 hex of its SHA-256>.json`
    /// (published objects other than `latest.json` are never replaced), exactly.
    package static func isManifestPath(_ path: String, for dataVersion: Int64) -> Bool {
        if path == manifestPath(dataVersion: dataVersion) { return true }
        let prefix = "manifests/\(dataVersion)-", suffix = ".json"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix) else { return false }
        let hex = path.dropFirst(prefix.count).dropLast(suffix.count)
        return hex.count == 16 && hex.allSatisfy { "0123456789abcdef".contains($0) }
    }
}
