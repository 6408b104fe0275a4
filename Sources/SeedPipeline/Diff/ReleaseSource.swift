import Foundation
import SeedInstall
import SeedStore

/// A release named on the command line, as a store file to compare (`seedbuild diff A B`): a
/// `.sqlite` store, a `.sqlite.gz` artifact, a `manifest.json` (its artifact beside it), a build's
/// output folder (its manifest.json), or a channel folder or URL — its current release, or with
/// `@VERSION` at the end, that data version's.
///
/// A compressed or downloaded release is inflated into a temporary folder, removed by ``close()``.
/// Every artifact is checked against its manifest's SHA-256; signatures are not (nothing is installed).
public struct ReleaseSource: Sendable {
    /// The store to read.
    public let path: String
    /// The release as given, for the report.
    public let name: String
    private let temporary: String?

    /// Finds and, when needed, downloads and inflates the release.
    /// - Throws: ``StoreError`` naming the location and what is missing or wrong (a channel without a
    ///   pointer, a data version it does not publish, an artifact that is not its manifest's).
    public static func open(_ location: String, transport: HTTPTransport = HTTPTransport()) throws -> ReleaseSource {
        var (address, version) = (location, Int64?.none)
        if let at = location.lastIndex(of: "@"), let number = Int64(location[location.index(after: at)...]) {
            (address, version) = (String(location[..<at]), number)
        }
        let isURL = address.contains("://") && !address.hasPrefix("file://")
        let path = address.hasPrefix("file://") ? (URL(string: address)?.path ?? String(address.dropFirst(7))) : address
        var isFolder: ObjCBool = false
        if !isURL {
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw StoreError(
                    .notFound, path: location,
                    "no such file or folder; give a .sqlite store, a .sqlite.gz artifact, a manifest.json or a channel")
            }
        }
        if isURL || isFolder.boolValue {
            let manifestBeside = (path as NSString).appendingPathComponent(Manifest.fileName)
            let pointerBeside = (path as NSString).appendingPathComponent(ReleasePointer.fileName)
            if !isURL, version == nil, !FileManager.default.fileExists(atPath: pointerBeside),
                FileManager.default.fileExists(atPath: manifestBeside)
            {
                return try manifest(manifestBeside, name: location)
            }
            return try channel(try ReleaseChannel(address, transport: transport), version: version, name: location)
        }
        if version != nil {
            throw StoreError(.refused, path: location, "@VERSION picks a data version of a channel; \(address) is a file")
        }
        if path.hasSuffix(".json") { return try manifest(path, name: location) }
        if StoreFile.isGzip(path) { return try inflated(path, name: location) }
        return ReleaseSource(path: path, name: location, temporary: nil)
    }

    /// The data versions a channel still publishes, newest first (its pointer's `releases`).
    public static func releases(of location: String, transport: HTTPTransport = HTTPTransport()) throws -> [Int64] {
        let channel = try ReleaseChannel(location, transport: transport)
        return try pointer(of: channel, name: location).releases
    }

    /// Removes the temporary copy, if any.
    public func close() {
        if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
    }

    private static func pointer(of channel: ReleaseChannel, name: String) throws -> ReleasePointer {
        guard let data = try channel.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes) else {
            throw StoreError(
                .notFound, path: channel.describe(ReleasePointer.fileName),
                "the channel has no pointer; give a channel folder or URL that holds latest.json")
        }
        return try ReleasePointer(data: data, source: channel.describe(ReleasePointer.fileName))
    }

    private static func manifest(_ path: String, name: String) throws -> ReleaseSource {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.io, path: path, "cannot read the manifest")
        }
        let manifest = try Manifest(data: data, path: path)
        guard let artifact = manifest.artifact, PendingDeltas.isPlainFileName(artifact.fileName) else {
            throw StoreError(.notASeedStore, path: path, "the manifest names no artifact beside it; give the store or the artifact")
        }
        let file = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(artifact.fileName)
        let digest = try FileDigest(of: file)
        guard digest.matches(bytes: artifact.bytes, sha256: artifact.sha256) else {
            throw StoreError(
                .notASeedStore, path: file,
                "\(digest.mismatch(bytes: artifact.bytes, sha256: artifact.sha256)) (\(path)'s); give an intact release")
        }
        return try inflated(file, name: name)
    }

    /// The channel's current release, or the one of data version `version`, downloaded and inflated.
    private static func channel(_ channel: ReleaseChannel, version: Int64?, name: String) throws -> ReleaseSource {
        let pointer = try pointer(of: channel, name: name)
        let manifestPath =
            version.map { $0 == pointer.dataVersion ? pointer.manifest : ReleasePointer.manifestPath(dataVersion: $0) } ?? pointer.manifest
        guard let data = try channel.read(manifestPath, maxBytes: ReleasePointer.maxBytes) else {
            throw StoreError(
                .notFound, path: channel.describe(manifestPath),
                "the channel does not publish data version \(version ?? pointer.dataVersion); it publishes \(pointer.releases.map(String.init).joined(separator: ", "))"
            )
        }
        let manifest = try Manifest(data: data, path: channel.describe(manifestPath))
        guard let artifact = manifest.artifact, ReleaseNames.isSHA256(artifact.sha256) else {
            throw StoreError(.notASeedStore, path: channel.describe(manifestPath), "the manifest names no artifact by its SHA-256")
        }
        let folder = BaseRelease.temporaryFolder()
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        do {
            let remote = ReleasePointer.artifactPath(sha256: artifact.sha256)
            let file = try DownloadFile.create((folder as NSString).appendingPathComponent("artifact.sqlite.gz"))
            _ = try channel.download(remote, into: file, maxBytes: artifact.bytes)
            let digest = try file.digest()
            guard digest.matches(bytes: artifact.bytes, sha256: artifact.sha256) else {
                throw StoreError(
                    .notASeedStore, path: channel.describe(remote),
                    "\(digest.mismatch(bytes: artifact.bytes, sha256: artifact.sha256)) (its manifest's)")
            }
            let store = (folder as NSString).appendingPathComponent("release.sqlite")
            _ = try GzipInflater.inflate(file.path, to: store, maxOutputBytes: manifest.store?.bytes)
            file.remove()
            return ReleaseSource(path: store, name: name, temporary: folder)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    private static func inflated(_ artifact: String, name: String) throws -> ReleaseSource {
        let folder = BaseRelease.temporaryFolder()
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = (folder as NSString).appendingPathComponent("release.sqlite")
        do {
            _ = try GzipInflater.inflate(artifact, to: store)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw StoreError(.notASeedStore, path: artifact, "does not inflate: \(error.reason)")
        }
        return ReleaseSource(path: store, name: name, temporary: folder)
    }
}
