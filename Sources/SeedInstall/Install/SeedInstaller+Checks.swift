import Crypto
import Foundation

extension SeedInstaller {
    /// `latest.json` and the manifest it names, each read at most 64 KiB as it arrives; the manifest
    /// must be at the path the pointer's data version gives and match the pointer's SHA-256.
    func readRelease(_ channel: ReleaseChannel, run: InstallRun) throws -> (ReleasePointer, Manifest, String) {
        guard let pointerData = try channel.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes) else {
            // Over HTTP a missing pointer is a 404 (other statuses are transfer errors).
            let status = if case .http = channel.location { "HTTP 404, " } else { "" }
            throw InstallError(
                .noRelease,
                "\(channel.describe(ReleasePointer.fileName)): \(status)no release there; check the channel URL (<server>/<dataset>/<model-version>/)"
            )
        }
        run.observer.received(Int64(pointerData.count))
        let pointerURL = channel.describe(ReleasePointer.fileName)
        let pointer = try ReleasePointer(data: pointerData, source: pointerURL)
        // The pointer names the manifest; only the paths its data version gives are ever read.
        guard ReleasePointer.isManifestPath(pointer.manifest, for: pointer.dataVersion) else {
            throw InstallError(
                .checksum,
                "\(pointerURL): names the manifest \"\(pointer.manifest)\", not \(ReleasePointer.manifestPath(dataVersion: pointer.dataVersion)) or a refreshed one of that data version; refusing it"
            )
        }
        guard ReleaseNames.isSHA256(pointer.manifestSHA256) else {
            throw InstallError(.checksum, "\(pointerURL): manifestSHA256 is not a SHA-256; the channel is damaged")
        }
        guard let manifestData = try channel.read(pointer.manifest, maxBytes: ReleasePointer.maxBytes) else {
            throw InstallError(
                .noRelease, "\(channel.describe(pointer.manifest)): latest.json names a manifest that is missing; the channel is damaged")
        }
        run.observer.received(Int64(manifestData.count))
        let manifestURL = channel.describe(pointer.manifest)
        guard Data(SHA256.hash(data: manifestData)).hexString == pointer.manifestSHA256 else {
            throw InstallError(
                .checksum, "\(manifestURL): the manifest does not match latest.json's manifestSHA256; it was changed after publishing")
        }
        return (pointer, try Manifest(data: manifestData, path: manifestURL), manifestURL)
    }

    /// Every field later used in a file name or a URL, checked against a strict form; the pointer and
    /// the manifest must agree; the manifest must state an expiry, which must not have passed.
    func checkFields(_ manifest: Manifest, pointer: ReleasePointer, url: String) throws -> (
        String, Int64, Manifest.FileEntry, Manifest.FileEntry
    ) {
        guard let dataset = manifest.dataset, let dataVersion = manifest.dataVersion,
            let artifact = manifest.artifact, let store = manifest.store
        else { throw InstallError(.checksum, "\(url): the manifest lacks dataset, dataVersion, artifact or store") }
        guard ReleaseNames.isValidDataset(dataset) else {
            throw InstallError(
                .checksum,
                "\(url): the dataset name \"\(dataset)\" is not a plain name (letters, digits, '.', '_', '-'; a letter or digit first); refusing it"
            )
        }
        guard dataset == pointer.dataset, dataVersion == pointer.dataVersion, dataVersion >= 0 else {
            throw InstallError(
                .checksum,
                "\(url): the manifest says \(dataset) \(dataVersion), latest.json says \(pointer.dataset) \(pointer.dataVersion); the channel is damaged"
            )
        }
        guard ReleaseNames.isSHA256(artifact.sha256), ReleaseNames.isSHA256(store.sha256), artifact.bytes > 0, store.bytes > 0 else {
            throw InstallError(.checksum, "\(url): the artifact's or the store's size or SHA-256 is not valid; refusing it")
        }
        guard let expires = manifest.expires else {
            throw InstallError(.expired, "\(url): the manifest states no expiry (every seedbuild release has one); refusing it")
        }
        if expires < now() {
            throw InstallError(
                .expired, "\(url): expired at \(ISO8601DateFormatter().string(from: expires)); the publisher must publish a fresh release")
        }
        return (dataset, dataVersion, artifact, store)
    }
}
