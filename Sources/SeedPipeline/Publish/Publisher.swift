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
    /// The S3 endpoint for `s3://` destinations (default: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, else AWS in the region).
    public var s3Endpoint: String?
    /// A canned ACL for S3 uploads, e.g. `public-read` so apps can fetch the objects over plain HTTPS.
    public var s3ACL: String?
    /// Where credentials and the region come from: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Runs after the uploads, before `latest.json` is read again and replaced (tests race publishes here).
    var beforePointerUpdate: (@Sendable () -> Void)?

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
            ?? String((Data(base64Encoded: Model.versionChecksum(of: manifest.versionHashes)) ?? Data()).hexString.prefix(12))
        let channel = try makeDestination(destination, channel: "\(dataset)/\(modelVersion)/")

        // A first look, to upload nothing when the release is there already or would be refused.
        if let data = try channel.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes) {
            let current = try ReleasePointer(data: data, source: channel.describe(ReleasePointer.fileName))
            if current.contentDigest == digest {
                return Result(outcome: .unchanged, channel: channel.describe(""), dataVersion: current.dataVersion, pruned: [])
            }
            guard dataVersion > current.dataVersion else { throw notNewer(dataVersion, current.dataVersion, channel) }
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
        guard let (_, remoteManifestSHA) = try channel.checksum(remoteManifest), remoteManifestSHA == manifestSHA else {
            throw PublishError(url: channel.describe(remoteManifest), method: "GET", status: nil, "the uploaded manifest does not read back with the built bytes")
        }
        beforePointerUpdate?()
        // Read again and replaced in one step no other publish can come between: a publish that lost
        // the race to a newer data version is refused, never written over it.
        var written: ReleasePointer?
        var unchanged: Int64?
        try channel.updatePointer { data in
            var history: [Int64] = []
            if let data {
                let current = try ReleasePointer(data: data, source: channel.describe(ReleasePointer.fileName))
                if current.contentDigest == digest {
                    unchanged = current.dataVersion
                    return nil
                }
                guard dataVersion > current.dataVersion else { throw notNewer(dataVersion, current.dataVersion, channel) }
                history = current.releases
            }
            let pointer = ReleasePointer(
                dataset: dataset, dataVersion: dataVersion, manifest: remoteManifest,
                manifestSHA256: manifestSHA, contentDigest: digest, releases: [dataVersion] + history.filter { $0 != dataVersion })
            written = pointer
            return pointer.data
        }
        guard let written else {
            return Result(outcome: .unchanged, channel: channel.describe(""), dataVersion: unchanged ?? dataVersion, pruned: [])
        }
        let pruned = try prune(channel, pointer: written)
        return Result(outcome: .published, channel: channel.describe(""), dataVersion: dataVersion, pruned: pruned)
    }

    private func notNewer(_ dataVersion: Int64, _ published: Int64, _ channel: PublishDestination) -> PublishError {
        PublishError(url: channel.describe(ReleasePointer.fileName), method: "publish", status: nil,
                     "data version \(dataVersion) is not newer than the published \(published); apps would refuse it as a rollback. Build with a higher --data-version")
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
            return try s3Destination(destination, channel: channel)
        }
        let root = destination.hasPrefix("file://") ? (URL(string: destination)?.path ?? String(destination.dropFirst(7))) : destination
        return DirectoryDestination(root: (root as NSString).appendingPathComponent(channel))
    }

    private func s3Destination(_ destination: String, channel: String) throws -> PublishDestination {
        let rest = destination.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !prefix.isEmpty { prefix += "/" }
        guard !bucket.isEmpty else {
            throw PublishError(url: destination, method: "publish", status: nil, "no bucket; write s3://bucket/prefix")
        }
        guard let accessKey = environment["AWS_ACCESS_KEY_ID"], let secretKey = environment["AWS_SECRET_ACCESS_KEY"] else {
            throw PublishError(url: destination, method: "publish", status: nil, "no credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let endpointText = s3Endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"] ?? "https://s3.\(region).amazonaws.com"
        guard let endpoint = URL(string: endpointText), endpoint.host != nil else {
            throw PublishError(url: endpointText, method: "publish", status: nil, "not an endpoint URL; give --s3-endpoint http(s)://host[:port]")
        }
        let signer = S3Signer(credentials: .init(accessKey: accessKey, secretKey: secretKey, sessionToken: environment["AWS_SESSION_TOKEN"]), region: region)
        return S3Destination(endpoint: endpoint, bucket: bucket, prefix: prefix + channel, signer: signer, transport: transport, acl: s3ACL)
    }

    /// Removes manifests, and the artifacts only they named, beyond the newest `keep` releases.
    /// Where a destination cannot list its folders (plain WebDAV), `latest.json`'s release list tells
    /// what is published; after pruning, the pointer is rewritten with the releases kept.
    private func prune(_ channel: PublishDestination, pointer: ReleasePointer) throws -> [String] {
        guard let keep else { return [] }
        let current = pointer.dataVersion
        let listed = try channel.list("manifests")?.compactMap { Int64($0.replacingOccurrences(of: ".json", with: "")) }
        let versions = (listed ?? pointer.releases).sorted(by: >)
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
        if !pruned.isEmpty {
            // Only if latest.json is still this publish's: a newer one written meanwhile keeps its own list.
            try channel.updatePointer { data in
                guard let data, var now = try? ReleasePointer(data: data, source: ""), now == pointer else { return nil }
                now.releases = now.releases.filter { kept.contains($0) }
                return now.data
            }
        }
        return pruned
    }
}
