import Foundation
import SeedModel
import SeedStore

/// The publish stage: a build's artifact and manifest → `<dataset>/<model-version>/` on a server.
///
/// Layout: `artifacts/<sha256>.sqlite.gz` and `manifests/<data-version>.json` (immutable), then
/// `latest.json` (the only object ever replaced) written last, after every upload was checked.
/// A failure before the pointer is replaced leaves the previous release fully valid. Publishing a
/// build whose content equals the current release's is a no-op.
public struct Publisher: Sendable {
    /// Prune manifests and artifacts older than the newest N releases (never the current one).
    public var keep: Int?
    public var transport = HTTPTransport()

    public init() {}

    public struct Result: Sendable {
        public enum Outcome: String, Sendable { case published, unchanged }
        public var outcome: Outcome
        /// The channel: `<destination>/<dataset>/<model-version>/`.
        public var channel: String
        public var dataVersion: Int64
        public var pruned: [String]
    }

    /// - Parameters:
    ///   - outputDirectory: the build's output folder (manifest.json and the artifact it names).
    ///   - destination: a folder path, `file://…`, or `http(s)://…` accepting WebDAV.
    /// - Throws: ``PublishError`` naming the URL, method and status (transient or not).
    public func publish(_ outputDirectory: String, to destination: String) throws -> Result {
        let manifestPath = (outputDirectory as NSString).appendingPathComponent(Manifest.fileName)
        guard let manifestData = FileManager.default.contents(atPath: manifestPath) else {
            throw IngestError(.missingInput, file: manifestPath, "no manifest; run seedbuild build first")
        }
        let manifest = try Manifest(data: manifestData, path: manifestPath)
        guard let dataset = manifest.dataset, let dataVersion = manifest.dataVersion, let artifact = manifest.artifact,
            let digest = manifest.values["contentDigest"]?.stringValue
        else { throw IngestError(.badData, file: manifestPath, "the manifest lacks dataset, dataVersion, artifact or contentDigest") }
        let artifactPath = (outputDirectory as NSString).appendingPathComponent(artifact.fileName)
        let local = try FileDigest(of: artifactPath)
        let (bytes, sha) = (local.bytes, local.sha256)
        guard bytes == artifact.bytes, sha == artifact.sha256 else {
            throw IngestError(.badData, file: artifactPath, "\(bytes) bytes with SHA-256 \(sha), the manifest says \(artifact.bytes) with \(artifact.sha256); rebuild before publishing")
        }
        let modelVersion = manifest.values["versionIdentifiers"]?.arrayValue?.first?.stringValue
            ?? String(Model.combinedHash(manifest.versionHashes).hexString.prefix(12))
        let channel = try makeDestination(destination, channel: "\(dataset)/\(modelVersion)/")

        if let data = try channel.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes) {
            let current = try ReleasePointer(data: data, source: channel.describe(ReleasePointer.fileName))
            if current.contentDigest == digest {
                return Result(outcome: .unchanged, channel: channel.describe(""), dataVersion: current.dataVersion, pruned: [])
            }
            guard dataVersion > current.dataVersion else {
                throw PublishError(url: channel.describe(ReleasePointer.fileName), method: "publish", status: nil,
                                   "data version \(dataVersion) is not newer than the published \(current.dataVersion); apps would refuse it as a rollback. Build with a higher --data-version")
            }
        }
        let remoteArtifact = ReleasePointer.artifactPath(sha256: sha)
        let remoteManifest = ReleasePointer.manifestPath(dataVersion: dataVersion)
        try channel.putImmutable(file: artifactPath, sha256: sha, at: remoteArtifact)
        let manifestSHA = try FileDigest(of: manifestPath).sha256
        try channel.putImmutable(file: manifestPath, sha256: manifestSHA, at: remoteManifest)
        // Read back before the pointer moves: what apps will download must be what was built.
        guard let (remoteBytes, remoteSHA) = try channel.checksum(remoteArtifact), remoteBytes == bytes, remoteSHA == sha else {
            throw PublishError(url: channel.describe(remoteArtifact), method: "GET", status: nil, "the uploaded artifact does not read back with the built bytes")
        }
        let pointer = ReleasePointer(
            dataset: dataset, dataVersion: dataVersion, manifest: remoteManifest,
            manifestSHA256: manifestSHA, contentDigest: digest)
        try channel.putPointer(pointer.data, at: ReleasePointer.fileName)
        let pruned = try prune(channel, current: dataVersion)
        return Result(outcome: .published, channel: channel.describe(""), dataVersion: dataVersion, pruned: pruned)
    }

    private func makeDestination(_ destination: String, channel: String) throws -> PublishDestination {
        if destination.hasPrefix("http://") || destination.hasPrefix("https://") {
            let base = destination.hasSuffix("/") ? destination : destination + "/"
            guard let url = URL(string: channel, relativeTo: URL(string: base)) else {
                throw PublishError(url: destination, method: "publish", status: nil, "not a URL")
            }
            return WebDAVDestination(base: url.absoluteURL, transport: transport)
        }
        if destination.hasPrefix("s3://") {
            throw PublishError(url: destination, method: "publish", status: nil, "S3 destinations are not supported yet; publish to a folder or a WebDAV server")
        }
        let root = destination.hasPrefix("file://") ? (URL(string: destination)?.path ?? String(destination.dropFirst(7))) : destination
        return DirectoryDestination(root: (root as NSString).appendingPathComponent(channel))
    }

    /// Removes manifests, and the artifacts only they named, beyond the newest `keep` releases.
    private func prune(_ channel: PublishDestination, current: Int64) throws -> [String] {
        guard let keep else { return [] }
        guard let names = try channel.list("manifests") else {
            throw PublishError(url: channel.describe("manifests/"), method: "publish", status: nil, "--keep needs a destination that can list folders (a folder); the release was published, nothing was pruned")
        }
        let versions = names.compactMap { Int64($0.replacingOccurrences(of: ".json", with: "")) }.sorted(by: >)
        let kept = Set(versions.prefix(max(keep, 1))).union([current])
        var keptArtifacts = Set<String>()
        for version in kept {
            if let data = try channel.read(ReleasePointer.manifestPath(dataVersion: version), maxBytes: ReleasePointer.maxBytes),
                let sha = (try? Manifest(data: data, path: ""))?.artifact?.sha256 {
                keptArtifacts.insert(ReleasePointer.artifactPath(sha256: sha))
            }
        }
        var pruned: [String] = []
        for version in versions where !kept.contains(version) {
            let path = ReleasePointer.manifestPath(dataVersion: version)
            if let data = try channel.read(path, maxBytes: ReleasePointer.maxBytes),
                let sha = (try? Manifest(data: data, path: ""))?.artifact?.sha256,
                !keptArtifacts.contains(ReleasePointer.artifactPath(sha256: sha)) {
                try channel.delete(ReleasePointer.artifactPath(sha256: sha))
                pruned.append(ReleasePointer.artifactPath(sha256: sha))
            }
            try channel.delete(path)
            pruned.append(path)
        }
        return pruned
    }
}
