import Foundation
import SeedInstall
import SeedPipeline

/// Releases that follow one another, with the delta between them listed in the later one's manifest.
///
/// Until the build and publish write deltas themselves, tests make them here: the delta from a base
/// release's store to a packaged release's store (``StoreDiff``), put in the channel at
/// `ReleasePointer.deltaPath(sha256:)`, and listed in the release's `manifest.json` (re-signed with
/// `key` when given) before the release is published. Replace this with the publisher's own deltas
/// once it writes them.
public enum TestDeltas {
    /// Writes the delta from the packaged release in `base` (a build's output folder) to the one in
    /// `release`, copies it into `channel` (`<destination>/<dataset>/<model-version>`), and adds its
    /// entry to `release`'s manifest.
    /// - Returns: the entry as listed.
    @discardableResult
    package static func add(from base: String, to release: String, channel: String, sign key: SigningKey? = nil) throws
        -> Manifest.DeltaEntry
    {
        let baseManifest = try manifest(in: base)
        let manifest = try manifest(in: release)
        guard let baseStore = baseManifest.store, let store = manifest.store, let fromVersion = baseManifest.dataVersion,
            let fromDigest = baseManifest.values["contentDigest"]?.stringValue, let toDigest = manifest.values["contentDigest"]?.stringValue
        else { throw TestDeltaError("\(base) or \(release): not a packaged release") }
        let fileName = "\(manifest.dataset ?? "seed")-from-\(fromVersion).delta.gz"
        let local = (release as NSString).appendingPathComponent(fileName)
        try? FileManager.default.removeItem(atPath: local)
        try StoreDiff().write(
            base: (base as NSString).appendingPathComponent(baseStore.fileName),
            new: (release as NSString).appendingPathComponent(store.fileName), to: local)
        let digest = try FileDigest(of: local)
        let entry = Manifest.DeltaEntry(
            fromDataVersion: fromVersion, fromContentDigest: fromDigest, fromStoreSHA256: baseStore.sha256, fileName: fileName,
            bytes: digest.bytes,
            sha256: digest.sha256, toContentDigest: toDigest)
        try publish(local, as: entry, in: channel)
        try list([entry], in: release, sign: key)
        return entry
    }

    /// Copies a delta file into the channel at its published path (`deltas/<sha256>.delta.gz`).
    package static func publish(_ file: String, as entry: Manifest.DeltaEntry, in channel: String) throws {
        let target = (channel as NSString).appendingPathComponent(ReleasePointer.deltaPath(sha256: entry.sha256))
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: file, toPath: target)
    }

    /// Adds entries to the `deltas` of the manifest in `release` (re-signed with `key` when given).
    package static func list(_ entries: [Manifest.DeltaEntry], in release: String, sign key: SigningKey? = nil) throws {
        var manifest = try manifest(in: release)
        manifest.values["deltas"] = .array((manifest.values["deltas"]?.arrayValue ?? []) + entries.map(\.jsonValue))
        if let key { try key.sign(&manifest) }
        let path = (release as NSString).appendingPathComponent(Manifest.fileName)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try manifest.fileData.write(to: URL(fileURLWithPath: (release as NSString).appendingPathComponent(Manifest.fileName)))
    }

    /// The manifest of the packaged release in `folder`.
    public static func manifest(in folder: String) throws -> Manifest {
        let path = (folder as NSString).appendingPathComponent(Manifest.fileName)
        return try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
    }
}

struct TestDeltaError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
