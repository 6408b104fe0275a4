import Foundation

/// A release's `manifest.json`: what was built, from what, and the artifact's size and checksums.
///
/// The file is pretty-printed JSON; a signature covers the object's canonical form
/// (`JSONValue.canonicalBytes`) without its `signature` member. Fields are documented in
/// `docs/artifacts.md`.
public struct Manifest: Sendable, Equatable {
    /// The newest manifest format this library reads; a manifest of a higher `formatVersion` is refused.
    package static let formatVersion: Int64 = 1
    /// The manifest's name beside a build's artifact.
    package static let fileName = "manifest.json"

    /// Every field of the manifest as read, `signature` included; the typed properties below read from it.
    public var values: [String: JSONValue]

    /// A manifest of these fields, unchecked.
    package init(values: [String: JSONValue]) {
        self.values = values
    }

    /// Parses a manifest.
    /// - Throws: ``StoreError`` (not a seed store) naming the file when it is not a manifest.
    public init(data: Data, path: String) throws(StoreError) {
        guard let text = String(data: data, encoding: .utf8),
            let value = try? JSONValue(jsonText: text), case .object(let values) = value
        else { throw StoreError(.notASeedStore, path: path, "not a JSON object; a manifest.json from seedbuild is one") }
        guard case .integer(let version)? = values["formatVersion"] else {
            throw StoreError(.notASeedStore, path: path, "no formatVersion; not a seedbuild manifest")
        }
        guard version <= Self.formatVersion else {
            throw StoreError(
                .notASeedStore, path: path,
                "manifest format \(version) is newer than this library reads (\(Self.formatVersion)); update seedbuild")
        }
        self.values = values
    }

    /// The store's metadata keys a manifest repeats, each with its name in the manifest.
    package static let metadataKeys: [(metadata: String, manifest: String)] = [
        (StoreMetadata.Key.dataVersion, "dataVersion"), (StoreMetadata.Key.modelName, "modelName"),
        (StoreMetadata.Key.modelVersionIdentifiers, "versionIdentifiers"), (StoreMetadata.Key.configuration, "configuration"),
        (StoreMetadata.Key.versionHashes, "versionHashes"), (StoreMetadata.Key.sources, "sources"),
        (StoreMetadata.Key.rowCounts, "rowCounts"), (StoreMetadata.Key.contentDigest, "contentDigest"),
        (StoreMetadata.Key.hashEncodingVersion, "hashEncodingVersion"),
    ]

    /// Where the manifest says something other than the store's own metadata, one entry per field
    /// (`rowCounts: manifest {"County":13}, store {"County":12}`); empty when they agree. A field the
    /// manifest leaves out is not compared.
    package func differences(from metadata: StoreMetadata) -> [String] {
        Self.metadataKeys.compactMap { key in
            guard let stated = values[key.manifest], stated != metadata[key.metadata] else { return nil }
            let stored = metadata[key.metadata]?.jsonText ?? "none"
            let both = stated.jsonText.count + stored.count <= 160
            return both ? "\(key.manifest): manifest \(stated.jsonText), store \(stored)" : key.manifest
        }
    }

    /// The dataset's name (`postcodes`): the installed store's file name starts with it.
    public var dataset: String? { values["dataset"]?.stringValue }
    /// The release's data version; installs refuse one older than the installed one.
    public var dataVersion: Int64? { values["dataVersion"]?.integerValue }
    /// The model configuration the store holds; an app's model must have it.
    public var configuration: String? { values["configuration"]?.stringValue }
    /// Entity name → Core Data's version hash of the model the store is stamped for.
    public var versionHashes: [String: Data] {
        (values["versionHashes"]?.objectValue ?? [:]).compactMapValues { $0.stringValue.flatMap(Data.init(hexString:)) }
    }

    /// The uncompressed store: `fileName`, `bytes`, `sha256`.
    public var store: FileEntry? { FileEntry(values["store"]) }
    /// The compressed artifact: `fileName`, `encoding`, `bytes`, `sha256`, `segments`.
    public var artifact: FileEntry? { FileEntry(values["artifact"]) }

    /// The deltas published with this release, one per earlier release it can be reached from in one
    /// hop (`deltas`, in `docs/publishing.md`); empty when there are none or the manifest predates them.
    package var deltas: [DeltaEntry] {
        (values["deltas"]?.arrayValue ?? []).compactMap(DeltaEntry.init)
    }

    /// When installs start refusing this manifest (`expired`); the publisher refreshes it before then.
    public var expires: Date? {
        values["expires"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }
    }

    /// When the manifest was written (its expiry counts from then); `created` for manifests older than the key.
    public var issued: Date? {
        (values["issued"] ?? values["created"])?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }
    }

    /// The signing key's id, or nil for an unsigned manifest.
    public var signatureKeyID: String? {
        values["signature"]?.objectValue?["keyId"]?.stringValue
    }

    /// The bytes a signature covers: the canonical form without `signature`.
    package var signedBytes: [UInt8] {
        var unsigned = values
        unsigned["signature"] = nil
        return JSONValue.object(unsigned).canonicalBytes
    }

    /// A file the release is made of, as the manifest states it: the store or the compressed artifact.
    public struct FileEntry: Sendable, Equatable {
        /// The file's name in the build's output folder.
        public var fileName: String
        /// Its size: a download never reads past it, an inflate never writes past the store's.
        public var bytes: Int64
        /// Its SHA-256, lowercase hex: checked before the file is used.
        public var sha256: String
        /// `gzip` for the artifact; nil for the store.
        public var encoding: String?
        /// The artifact's independent segments (``GzipSegments``); nil in manifests from before them.
        package var segments: GzipSegments?

        init?(_ value: JSONValue?) {
            guard let object = value?.objectValue, let name = object["fileName"]?.stringValue,
                let bytes = object["bytes"]?.integerValue, let sha = object["sha256"]?.stringValue
            else { return nil }
            fileName = name
            self.bytes = bytes
            sha256 = sha
            encoding = object["encoding"]?.stringValue
            segments = GzipSegments(object["segments"])
        }
    }

    /// A delta from an earlier release straight to this one, as the manifest lists it. Published at
    /// `ReleasePointer.deltaPath(sha256:)` in the channel; `fileName` is its name beside the build's
    /// manifest.
    ///
    /// ```json
    /// {"fromDataVersion": 202611251200, "fromContentDigest": "…", "fromStoreSHA256": "…",
    ///  "fileName": "postcodes-from-202611251200.delta.gz", "bytes": 20731, "sha256": "…",
    ///  "toContentDigest": "…"}
    /// ```
    package struct DeltaEntry: Sendable, Equatable {
        /// The base release: its data version, content digest and its store's SHA-256 as published.
        package var fromDataVersion: Int64
        /// The base release's content digest: the installed store's must be this one.
        package var fromContentDigest: String
        /// The base store's SHA-256 as published: the installed store must still be that file.
        package var fromStoreSHA256: String
        /// The delta's name beside the build's manifest (in the channel it is at ``ReleasePointer/deltaPath(sha256:)``).
        package var fileName: String
        /// The delta file (gzip) as published: never downloaded past this size.
        package var bytes: Int64
        /// The delta file's SHA-256, checked before it is read.
        package var sha256: String
        /// The content digest of the store the delta gives: this release's.
        package var toContentDigest: String

        /// An entry with every field given; ``Manifest/deltas`` reads them from the manifest.
        package init(
            fromDataVersion: Int64, fromContentDigest: String, fromStoreSHA256: String, fileName: String, bytes: Int64, sha256: String,
            toContentDigest: String
        ) {
            self.fromDataVersion = fromDataVersion
            self.fromContentDigest = fromContentDigest
            self.fromStoreSHA256 = fromStoreSHA256
            self.fileName = fileName
            self.bytes = bytes
            self.sha256 = sha256
            self.toContentDigest = toContentDigest
        }

        init?(_ value: JSONValue) {
            guard let object = value.objectValue, let from = object["fromDataVersion"]?.integerValue,
                let fromDigest = object["fromContentDigest"]?.stringValue, let fromSHA = object["fromStoreSHA256"]?.stringValue,
                let name = object["fileName"]?.stringValue, let bytes = object["bytes"]?.integerValue, bytes >= 0,
                let sha = object["sha256"]?.stringValue, let toDigest = object["toContentDigest"]?.stringValue
            else { return nil }
            self.init(
                fromDataVersion: from, fromContentDigest: fromDigest, fromStoreSHA256: fromSHA, fileName: name, bytes: bytes, sha256: sha,
                toContentDigest: toDigest)
        }
    }
}
