import Foundation
import SeedModel
import SeedStore

/// The publish stage: a build's artifact and manifest → `<dataset>/<model-version>/` on a server.
///
/// Layout: `artifacts/<sha256>.sqlite.gz`, `deltas/<sha256>.delta.gz` and `manifests/<data-version>.json` (immutable), then
/// `latest.json` (the only object ever replaced) written last, after every upload was checked.
/// A failure before the pointer is replaced leaves the previous release fully valid. Publishing a
/// build whose content equals the current release's uploads no artifact; it refreshes the manifest
/// when the published one is past half its lifetime or signed differently (see `Publisher+Refresh`).
public struct Publisher: Sendable {
    /// Prune manifests and artifacts older than the newest N releases (never the current one).
    public var keep: Int?
    public var transport = HTTPTransport()
    /// The S3 endpoint for `s3://` destinations (default: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, else AWS in the region).
    public var s3Endpoint: String?
    /// A canned ACL for S3 uploads, e.g. `public-read` so apps can fetch the objects over plain HTTPS.
    public var s3ACL: String?
    /// What caches in front of the server may keep (stored with each object on S3).
    public var cachePolicy = CachePolicy()
    /// Where credentials and the region come from: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Runs after the uploads, before `latest.json` is read again and replaced (tests race publishes here).
    var beforePointerUpdate: (@Sendable () -> Void)?

    public init() {}

    /// The clock expiry is judged by (tests set it).
    public var now: @Sendable () -> Date = { Date() }
    /// Publish an unsigned manifest into a channel whose current release is signed (refused otherwise:
    /// apps that trust a key would refuse every later release).
    public var allowUnsigned = false

    public struct Result: Sendable {
        public enum Outcome: String, Sendable {
            case published
            /// The same content was there; its manifest was replaced by this build's fresher or differently signed one.
            case refreshed
            /// The same content was there with a manifest that needs no refresh.
            case unchanged = "already published"
        }
        public var outcome: Outcome
        /// The channel: `<destination>/<dataset>/<model-version>/`.
        public var channel: String
        public var dataVersion: Int64
        public var pruned: [String]
        /// Where the current release's pointer, manifest and artifact are.
        public var pointerURL: String
        public var manifestURL: String
        public var artifactURL: String
        /// The current manifest's expiry.
        public var expires: Date?
        /// Why a refresh was made (or why one was due but this build's manifest is no fresher).
        public var reason: String?
        /// The deltas the current release's manifest lists, where they are published.
        public var deltas: [PublishedDelta] = []
        /// The channel page (`index.html`), when it was written.
        public var pageURL: String?
        /// Why the channel page could not be written; the release is published all the same.
        public var pageProblem: String?
    }

    /// A delta of the current release in the channel.
    public struct PublishedDelta: Sendable, Equatable {
        public var fromDataVersion: Int64
        public var url: String
        public var bytes: Int64
    }

    /// - Parameters:
    ///   - outputDirectory: the build's output folder (manifest.json and the artifact it names).
    ///   - destination: a folder path, `file://…`, or `http(s)://…` accepting WebDAV.
    /// - Throws: ``PublishError`` naming the URL, method and status (transient or not); ``IngestError``
    ///   for a local manifest that is expired, does not match its artifact, or is unsigned where the channel is signed.
    public func publish(_ outputDirectory: String, to destination: String) throws -> Result {
        let local = try LocalRelease(outputDirectory, now: now())
        let channel = try makeDestination(destination, channel: "\(local.dataset)/\(local.modelVersion)/")
        var refreshReason: String?
        if let data = try channel.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes) {
            let current = try ReleasePointer(data: data, source: channel.describe(ReleasePointer.fileName))
            let published = try channel.read(current.manifest, maxBytes: ReleasePointer.maxBytes)
                .flatMap { try? Manifest(data: $0, path: channel.describe(current.manifest)) }
            try checkSigning(local, against: published, channel: channel)
            if current.contentDigest == local.digest {
                switch refreshDecision(local: local.manifest, published: published) {
                case .none(let reason):
                    return result(.unchanged, channel, current, manifest: published, pruned: [], reason: reason)
                case .refresh(let reason):
                    guard local.dataVersion >= current.dataVersion else {
                        throw IngestError(
                            .badData, file: local.manifestPath,
                            "cannot refresh the published release (\(reason)): this build's data version \(local.dataVersion) is older than the published \(current.dataVersion); build with --data-version \(current.dataVersion) or higher"
                        )
                    }
                    refreshReason = reason
                }
            } else if local.dataVersion <= current.dataVersion {
                throw notNewer(local.dataVersion, current.dataVersion, channel)
            }
        }
        guard let pointer = try upload(local, to: channel, refreshing: refreshReason != nil) else {
            // The same content was published by another run meanwhile.
            let data = try channel.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes)
            let current = try ReleasePointer(data: data ?? Data(), source: channel.describe(ReleasePointer.fileName))
            let published = try channel.read(current.manifest, maxBytes: ReleasePointer.maxBytes)
                .flatMap { try? Manifest(data: $0, path: channel.describe(current.manifest)) }
            return result(.unchanged, channel, current, manifest: published, pruned: [], reason: nil)
        }
        let pruned = try prune(channel, pointer: pointer)
        return result(
            refreshReason == nil ? .published : .refreshed, channel, pointer, manifest: local.manifest, pruned: pruned,
            reason: refreshReason)
    }

    /// Uploads the artifact (a no-op when the same bytes are there), the deltas and the manifest, reads them back,
    /// then replaces `latest.json`; nil when another publish put the same content there meanwhile.
    private func upload(_ local: LocalRelease, to channel: PublishDestination, refreshing: Bool) throws -> ReleasePointer? {
        let remoteArtifact = ReleasePointer.artifactPath(sha256: local.artifactSHA256)
        try channel.putImmutable(file: local.artifactPath, sha256: local.artifactSHA256, at: remoteArtifact)
        // The deltas before the manifest that lists them, immutable like the artifact.
        for delta in local.deltas {
            try channel.putImmutable(file: delta.path, sha256: delta.entry.sha256, at: ReleasePointer.deltaPath(sha256: delta.entry.sha256))
        }
        let manifestSHA = try FileDigest(of: local.manifestPath).sha256
        let remoteManifest = try manifestPath(for: local.dataVersion, sha256: manifestSHA, in: channel)
        try channel.putImmutable(file: local.manifestPath, sha256: manifestSHA, at: remoteManifest)
        // Read back before the pointer moves: what apps will download must be what was built.
        guard let (remoteBytes, remoteSHA) = try channel.checksum(remoteArtifact), remoteBytes == local.artifactBytes,
            remoteSHA == local.artifactSHA256
        else {
            throw PublishError(
                url: channel.describe(remoteArtifact), method: "GET", status: nil,
                "the uploaded artifact does not read back with the built bytes")
        }
        for delta in local.deltas {
            let remote = ReleasePointer.deltaPath(sha256: delta.entry.sha256)
            guard let (bytes, sha) = try channel.checksum(remote), bytes == delta.entry.bytes, sha == delta.entry.sha256 else {
                throw PublishError(
                    url: channel.describe(remote), method: "GET", status: nil,
                    "the uploaded delta from data version \(delta.entry.fromDataVersion) does not read back with the built bytes")
            }
        }
        guard let (_, remoteManifestSHA) = try channel.checksum(remoteManifest), remoteManifestSHA == manifestSHA else {
            throw PublishError(
                url: channel.describe(remoteManifest), method: "GET", status: nil,
                "the uploaded manifest does not read back with the built bytes")
        }
        try putMarker(local, to: channel)
        beforePointerUpdate?()
        // Read again and replaced in one step no other publish can come between: a publish that lost
        // the race to a newer data version is refused, never written over it; the same content
        // published meanwhile is left as it is, unless this publish refreshes it.
        var written: ReleasePointer?
        try channel.updatePointer { data in
            var history: [Int64] = []
            if let data {
                let current = try ReleasePointer(data: data, source: channel.describe(ReleasePointer.fileName))
                if current.contentDigest == local.digest {
                    guard refreshing else { return nil }
                    guard local.dataVersion >= current.dataVersion else { throw notNewer(local.dataVersion, current.dataVersion, channel) }
                } else {
                    guard local.dataVersion > current.dataVersion else { throw notNewer(local.dataVersion, current.dataVersion, channel) }
                }
                history = current.releases
            }
            let pointer = ReleasePointer(
                dataset: local.dataset, dataVersion: local.dataVersion, manifest: remoteManifest,
                manifestSHA256: manifestSHA, contentDigest: local.digest,
                releases: [local.dataVersion] + history.filter { $0 != local.dataVersion })
            written = pointer
            return pointer.data
        }
        return written
    }

    /// The channel's marker (``ChannelMarker``), before the pointer: once it is there, a build finds the
    /// channel holds releases even if its pointer goes missing.
    private func putMarker(_ local: LocalRelease, to channel: PublishDestination) throws {
        let data = ChannelMarker.data(dataset: local.dataset, modelVersion: local.modelVersion)
        let sha256 = FileDigest(of: data).sha256
        // Any marker there says what it must; it is never replaced.
        if try channel.checksum(ChannelMarker.fileName) != nil { return }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-channel-\(UUID().uuidString).json").path
        try data.write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try channel.putImmutable(file: file, sha256: sha256, at: ChannelMarker.fileName)
    }

    private func result(
        _ outcome: Result.Outcome, _ channel: PublishDestination, _ pointer: ReleasePointer, manifest: Manifest?, pruned: [String],
        reason: String?
    ) -> Result {
        var result = Result(
            outcome: outcome, channel: channel.describe(""), dataVersion: pointer.dataVersion, pruned: pruned,
            pointerURL: channel.describe(ReleasePointer.fileName), manifestURL: channel.describe(pointer.manifest),
            artifactURL: manifest?.artifact.map { channel.describe(ReleasePointer.artifactPath(sha256: $0.sha256)) } ?? "",
            expires: manifest?.expires, reason: reason,
            deltas: (manifest?.deltas ?? []).map { entry in
                PublishedDelta(
                    fromDataVersion: entry.fromDataVersion, url: channel.describe(ReleasePointer.deltaPath(sha256: entry.sha256)),
                    bytes: entry.bytes)
            })
        writePage(channel, into: &result)
        return result
    }

    private func notNewer(_ dataVersion: Int64, _ published: Int64, _ channel: PublishDestination) -> PublishError {
        PublishError(
            url: channel.describe(ReleasePointer.fileName), method: "publish", status: nil,
            "data version \(dataVersion) is not newer than the published \(published); apps would refuse it as a rollback. Build with a higher --data-version",
            refusal: true)
    }

    /// The URL schemes a release can be published over; anything else that looks like a URL is refused.
    public static let schemes = ["http", "https", "s3", "file"]

    private func makeDestination(_ given: String, channel: String) throws -> PublishDestination {
        let destination: String
        do {
            destination = try LocationAddress.normalized(given, schemes: Self.schemes, method: "PUT")
        } catch {
            throw PublishError(error)
        }
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
            throw PublishError(
                url: destination, method: "publish", status: nil, "no credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let endpointText =
            s3Endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"] ?? "https://s3.\(region).amazonaws.com"
        guard let endpoint = URL(string: endpointText), endpoint.host != nil else {
            throw PublishError(
                url: endpointText, method: "publish", status: nil, "not an endpoint URL; give --s3-endpoint http(s)://host[:port]")
        }
        let signer = S3Signer(
            credentials: .init(accessKey: accessKey, secretKey: secretKey, sessionToken: environment["AWS_SESSION_TOKEN"]), region: region)
        return S3Destination(
            endpoint: endpoint, bucket: bucket, prefix: prefix + channel, signer: signer, transport: transport, acl: s3ACL,
            cachePolicy: cachePolicy)
    }
}
