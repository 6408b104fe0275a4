import Foundation
import SeedStore

/// A channel's kept releases, newest first, read as an app reads them: the pointer, then the manifest
/// of each data version its `releases` list names. What the channel page (``ChannelPage``) draws.
public struct ChannelHistory: Sendable {
    /// One release, as its manifest states it.
    public struct Release: Sendable, Equatable {
        public struct Delta: Sendable, Equatable {
            public var fromDataVersion: Int64
            public var bytes: Int64
        }

        public var dataVersion: Int64
        /// When it was built (`created`, ISO 8601).
        public var created: String?
        /// The key id of its signature, nil when unsigned.
        public var signedBy: String?
        public var modelName: String?
        /// The seed model's version identifiers (the channel's model version is the first).
        public var modelVersions: [String]
        public var rowCounts: [String: Int64]
        public var artifactBytes: Int64
        public var storeBytes: Int64
        public var deltas: [Delta]
        /// Rows the build rejected, over every source.
        public var rejected: Int64
        /// What changed against the release it followed, when the build followed one (``ChangeReport``).
        public var changes: ChangeReport?

        /// A delta's size as a share of this release's artifact.
        public func share(_ delta: Delta) -> Double {
            artifactBytes > 0 ? Double(delta.bytes) / Double(artifactBytes) : 0
        }

        init(_ manifest: Manifest, dataVersion: Int64) {
            self.dataVersion = dataVersion
            created = manifest.values["created"]?.stringValue
            signedBy = manifest.signatureKeyID
            modelName = manifest.values["modelName"]?.stringValue
            modelVersions = manifest.values["versionIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
            rowCounts = (manifest.values["rowCounts"]?.objectValue ?? [:]).compactMapValues(\.integerValue)
            artifactBytes = manifest.artifact?.bytes ?? 0
            storeBytes = manifest.store?.bytes ?? 0
            deltas = manifest.deltas.map { Delta(fromDataVersion: $0.fromDataVersion, bytes: $0.bytes) }
            rejected = (manifest.values["sources"]?.arrayValue ?? []).reduce(0) {
                $0 + ($1.objectValue?["rowsRejected"]?.integerValue ?? 0)
            }
            changes = manifest.values[ChangeReport.manifestKey].flatMap { ChangeReport(manifestValue: $0, dataVersion: dataVersion) }
        }
    }

    /// The channel as given (a folder or URL).
    public var channel: String
    public var dataset: String
    /// Newest first; the first is the current release.
    public var releases: [Release]
    /// Data versions the pointer lists whose manifest could not be read (pruned, or a refresh under another name).
    public var unreadable: [Int64]

    /// The most releases a page shows: a year of nightly releases fits, the page stays small.
    public static let defaultLimit = 400

    /// Reads a channel's pointer and the manifests of the releases it lists.
    /// - Throws: ``TransferError`` or ``StoreError`` when the pointer or the current manifest cannot be
    ///   read; an older manifest that cannot be read is listed in ``unreadable`` instead.
    public static func load(_ channel: String, transport: HTTPTransport = HTTPTransport(), limit: Int = defaultLimit) throws
        -> ChannelHistory
    {
        let source = try ReleaseChannel(channel, transport: transport)
        return try load(channel, read: { try source.read($0, maxBytes: $1) }, describe: source.describe, limit: limit)
    }

    /// Reads a channel through `read` (a path in the channel and the most bytes to read; nil when absent).
    static func load(
        _ channel: String, read: (String, Int64) throws -> Data?, describe: (String) -> String, limit: Int = defaultLimit
    ) throws -> ChannelHistory {
        let source = (read: read, describe: describe)
        guard let data = try source.read(ReleasePointer.fileName, ReleasePointer.maxBytes) else {
            throw StoreError(
                .refused, path: source.describe(ReleasePointer.fileName),
                "the channel has no release yet (no latest.json); publish one first")
        }
        let pointer = try ReleasePointer(data: data, source: source.describe(ReleasePointer.fileName))
        var releases: [Release] = []
        var unreadable: [Int64] = []
        let versions = ([pointer.dataVersion] + pointer.releases.filter { $0 != pointer.dataVersion }).prefix(limit)
        for version in versions {
            let path = version == pointer.dataVersion ? pointer.manifest : ReleasePointer.manifestPath(dataVersion: version)
            let manifest: Manifest?
            do {
                manifest = try source.read(path, ReleasePointer.maxBytes).map { try Manifest(data: $0, path: source.describe(path)) }
            } catch  where version != pointer.dataVersion {
                manifest = nil
            }
            guard let manifest else {
                if version == pointer.dataVersion {
                    throw StoreError(
                        .refused, path: source.describe(path), "the current release's manifest is missing; publish the release again")
                }
                unreadable.append(version)
                continue
            }
            releases.append(Release(manifest, dataVersion: version))
        }
        return ChannelHistory(channel: channel, dataset: pointer.dataset, releases: releases, unreadable: unreadable)
    }
}
