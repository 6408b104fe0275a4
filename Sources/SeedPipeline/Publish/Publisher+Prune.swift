import Foundation
import SeedStore

/// `--keep N`: what goes with the releases beyond the newest N.
extension Publisher {
    /// Removes manifests beyond the newest `keep` releases, and the artifacts and deltas only they
    /// named: an object a kept manifest names stays. Where a destination cannot list its folders
    /// (plain WebDAV), `latest.json`'s release list tells what is published; after pruning, the
    /// pointer is rewritten with the releases kept.
    func prune(_ channel: PublishDestination, pointer: ReleasePointer) throws -> [String] {
        guard let keep else { return [] }
        let current = pointer.dataVersion
        let listedNames = try channel.list("manifests")
        let listed = listedNames.map { Set($0.compactMap(Self.dataVersion(ofManifestNamed:))) }
        let versions = (listed.map(Array.init) ?? pointer.releases).sorted(by: >)
        let kept = Set(versions.prefix(max(keep, 1))).union([current])
        /// A version's manifests: `<version>.json`, and its refreshed ones (`<version>-<sha>.json`) where the folder can be listed.
        func manifests(of version: Int64) -> [String] {
            let refreshed = (listedNames ?? []).sorted().filter {
                $0 != "\(version).json" && Self.dataVersion(ofManifestNamed: $0) == version
            }
            return [ReleasePointer.manifestPath(dataVersion: version)] + refreshed.map { "manifests/" + $0 }
        }
        var keptObjects = Set<String>()
        for version in kept {
            for path in manifests(of: version) + (version == current ? [pointer.manifest] : []) {
                keptObjects.formUnion(try objects(namedBy: path, in: channel))
            }
        }
        var pruned: [String] = []
        for version in versions where !kept.contains(version) {
            for path in manifests(of: version) {
                for object in try objects(namedBy: path, in: channel) where !keptObjects.contains(object) && !pruned.contains(object) {
                    try channel.delete(object)
                    pruned.append(object)
                }
                try channel.delete(path)
                pruned.append(path)
            }
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

    /// The artifact and deltas a published manifest names (none when it is absent or unreadable).
    private func objects(namedBy manifestPath: String, in channel: PublishDestination) throws -> [String] {
        guard let data = try channel.read(manifestPath, maxBytes: ReleasePointer.maxBytes),
            let manifest = try? Manifest(data: data, path: manifestPath)
        else {
            return []
        }
        let artifact = manifest.artifact.map { [ReleasePointer.artifactPath(sha256: $0.sha256)] } ?? []
        return artifact + manifest.deltas.filter { ReleaseNames.isSHA256($0.sha256) }.map { ReleasePointer.deltaPath(sha256: $0.sha256) }
    }
}
