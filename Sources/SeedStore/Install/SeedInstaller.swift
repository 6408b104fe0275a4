import Crypto
import Foundation
import SeedModel

/// Fetches a seed release, checks it, and installs it beside the app's data, switching atomically.
///
/// ```swift
/// var installer = SeedInstaller()
/// installer.trustedKeys = [try TrustedKey(pem: pem, path: "seedbuild-signing.pub")]
/// installer.model = appSeedModel
/// let result = try installer.install(from: "https://cdn.example.com/postcodes/2/", to: appSupport)
/// ```
/// Order of checks: the pointer and manifest (each at most 64 KiB), the signature by a trusted key
/// before any field is used, expiry, rollback, model compatibility — all before downloading; then
/// the artifact (resumed if a partial download is there, never past its stated size), its SHA-256,
/// the inflated store (never past its stated size) and its SHA-256, `quick_check`. Only then is the
/// store renamed into `DIR/<dataset>-<dataVersion>.sqlite` and `DIR/<dataset>.current` switched;
/// any failure leaves the installed seed untouched and in use.
public struct SeedInstaller: Sendable {
    public var trustedKeys: [TrustedKey] = []
    /// The app's seed model; when set, the release's hashes must match its configuration.
    public var model: Model?
    public var now: @Sendable () -> Date = { Date() }
    public var transport = HTTPTransport()

    public init() {}

    public struct Result: Sendable {
        public enum Outcome: String, Sendable {
            case installed
            /// The same data version is installed already.
            case alreadyInstalled
        }

        public var outcome: Outcome
        public var storePath: String
        public var dataVersion: Int64
        public var manifest: Manifest
        /// When the release's model differs from the app's: the lightweight migration that opens it.
        public var migration: MigrationPlan?
    }

    /// - Throws: ``InstallError`` saying which check refused the release; ``TransferError`` for the network.
    public func install(from channelURL: String, to directory: String) throws -> Result {
        let channel = try ReleaseChannel(channelURL, transport: transport)
        guard let pointerData = try channel.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes) else {
            throw InstallError(.noRelease, "\(channel.describe(ReleasePointer.fileName)): no release there; check the channel URL (<server>/<dataset>/<model-version>/)")
        }
        let pointer = try ReleasePointer(data: pointerData, source: channel.describe(ReleasePointer.fileName))
        guard let manifestData = try channel.read(pointer.manifest, maxBytes: ReleasePointer.maxBytes) else {
            throw InstallError(.noRelease, "\(channel.describe(pointer.manifest)): latest.json names a manifest that is missing; the channel is damaged")
        }
        let manifestURL = channel.describe(pointer.manifest)
        guard Data(SHA256.hash(data: manifestData)).hexString == pointer.manifestSHA256 else {
            throw InstallError(.checksum, "\(manifestURL): the manifest does not match latest.json's manifestSHA256; it was changed after publishing")
        }
        let manifest = try Manifest(data: manifestData, path: manifestURL)
        if !trustedKeys.isEmpty, !trustedKeys.contains(where: { $0.verify(manifest) }) {
            throw InstallError(.signature, "\(manifestURL): no valid signature by a trusted key (key ids \(trustedKeys.map(\.keyID).joined(separator: ", "))); refusing it")
        }
        guard let dataset = manifest.dataset, let dataVersion = manifest.dataVersion,
            let artifact = manifest.artifact, let store = manifest.store
        else { throw InstallError(.checksum, "\(manifestURL): the manifest lacks dataset, dataVersion, artifact or store") }
        if let expires = manifest.expires, expires < now() {
            throw InstallError(.expired, "\(manifestURL): expired at \(ISO8601DateFormatter().string(from: expires)); the publisher must publish a fresh release")
        }
        let state = InstalledSeed(directory: directory, dataset: dataset)
        if let installed = state.current {
            if dataVersion < installed.dataVersion {
                throw InstallError(.rollback, "\(manifestURL): data version \(dataVersion) is older than the installed \(installed.dataVersion); refusing a rollback")
            }
            if dataVersion == installed.dataVersion {
                return Result(outcome: .alreadyInstalled, storePath: state.path(installed.store), dataVersion: dataVersion, manifest: manifest, migration: nil)
            }
        }
        let plan = try checkModel(manifest, url: manifestURL)
        let path = try download(artifact, store: store, from: channel, into: directory, dataset: dataset, dataVersion: dataVersion)
        try state.switchTo(storeFile: path, dataVersion: dataVersion, contentDigest: manifest.values["contentDigest"]?.stringValue ?? "")
        return Result(outcome: .installed, storePath: state.path(path), dataVersion: dataVersion, manifest: manifest, migration: plan)
    }

    /// The release's entity hashes must equal the app model's (every entity, Core Data's rule), or a
    /// lightweight migration must be inferable from the model the manifest carries — before downloading.
    private func checkModel(_ manifest: Manifest, url: String) throws -> MigrationPlan? {
        guard let model else { return nil }
        guard let configuration = manifest.configuration else { throw InstallError(.model, "\(url): the manifest names no configuration") }
        guard (try? model.restricted(to: configuration)) != nil else {
            throw InstallError(.model, "\(url): the app's model has no configuration \(configuration)")
        }
        let releaseModel = manifest.values["seedModel"].flatMap {
            try? ModelLoader.load(json: Data($0.jsonText.utf8), source: ModelSource(file: url, version: "release"))
        }
        var stamp = StoreMetadata()
        stamp[StoreMetadata.Key.versionHashes] = manifest.values["versionHashes"]
        stamp[StoreMetadata.Key.hashEncodingVersion] = manifest.values["hashEncodingVersion"]
        stamp[StoreMetadata.Key.configuration] = .string(configuration)
        let differences = stamp.hashDifferences(from: model, embeddedModel: releaseModel)
        guard !differences.isEmpty else { return nil }
        guard let releaseModel else {
            throw InstallError(.model, "\(url): the release's model differs from the app's for \(differences.map(\.description).joined(separator: ", ")) and the manifest carries no model to infer a migration from. Publish a release for this model version")
        }
        do {
            return try MappingInference.infer(from: releaseModel, to: model, configuration: configuration)
        } catch {
            throw InstallError(.model, "\(url): the release cannot be opened under the app's model: \(error.messages.joined(separator: "; "))")
        }
    }
}
