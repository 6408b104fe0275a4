import Crypto
import Foundation
import SeedModel

/// Fetches a seed release, checks it, and installs it beside the app's data, switching atomically.
///
/// ```swift
/// var installer = SeedInstaller()
/// installer.trustedKeys = [try TrustedKey(pem: pem, path: "seedbuild-signing.pub")]  // or allowUnsigned = true
/// installer.model = appSeedModel
/// let result = try installer.install(from: "https://cdn.example.com/postcodes/2/", to: appSupport)
/// ```
/// Order of checks: the pointer and manifest (each at most 64 KiB, counted as they arrive), the
/// signature by a trusted key before any field is used (or, only with ``allowUnsigned``, none), every
/// name and checksum field's form, expiry, rollback, model compatibility — all before downloading; then
/// the artifact (resumed if a partial download is there, never past its stated size), its SHA-256,
/// the inflated store (never past its stated size) and its SHA-256, `quick_check`, the store's own
/// metadata against the manifest. The whole fetch ends by ``deadline``. Only then is the
/// store renamed into `DIR/<dataset>-<dataVersion>.sqlite` and `DIR/<dataset>.current` switched;
/// any failure leaves the installed seed untouched and in use.
///
/// When a release is installed and the manifest lists a delta from it, the delta is tried first
/// (a few KB instead of the whole artifact): the installed store must be the delta's base exactly as
/// installed, the delta is checked and applied to a copy of it, and the result checked as a full
/// install checks a store. Any failure there falls back to the artifact in the same fetch;
/// ``Result/via`` says which way the release came and ``Result/fallback`` why
/// (`docs/publishing.md`, "Deltas on the device").
public struct SeedInstaller: Sendable {
    /// The publishers' Ed25519 public keys: a manifest must carry a valid signature by one of them
    /// (``TrustedKey/init(pem:path:)`` reads the `.pub` file `seedbuild keygen` writes). Give the old and
    /// the new key while a channel rotates its key. Empty means no release is installed unless
    /// ``allowUnsigned`` is set.
    public var trustedKeys: [TrustedKey] = []
    /// Installs releases nobody vouches for when no trusted key is given. Without a key, whoever can
    /// change the server or the connection can change the seed; everything else is still checked.
    public var allowUnsigned = false
    /// Seconds the whole fetch may take, retries included, before it is given up.
    public var deadline: TimeInterval = 300
    /// The app's seed model; when set, the release's hashes must match its configuration.
    public var model: Model?
    /// The clock a manifest's expiry is checked against; tests set it to install at a given date.
    public var now: @Sendable () -> Date = { Date() }
    /// The HTTP client for the pointer, manifest, delta and artifact: its retry policy and its
    /// per-request limits (idle timeout, minimum rate).
    public var transport = HTTPTransport()
    /// The most bytes a delta may be, as the manifest states it (checked before downloading it), and
    /// inflate to: it is read into memory whole, so past this the artifact is downloaded instead
    /// (`tooLarge`). A night's delta of 1M postcodes inflates to about 0.6 MB,
    /// seven nights' to 2.5 MB.
    public var maxDeltaBytes = 32 << 20
    /// Seconds reading a delta, applying it and checking its result may take, from the end of its download;
    /// past them (or past ``deadline``, whichever comes first) SQLite is interrupted, the copy
    /// dropped, and the full artifact fetched instead (`timedOut`). A night's delta of 1M postcodes
    /// fetches, applies and checks in 1.2 s on a desktop (`docs/performance.md`); this bounds a delta
    /// of millions of operations.
    public var deltaApplyTimeout: TimeInterval = 20
    /// Checks a delta's result by reading the whole store (`quick_check`, the content digest from every
    /// row, the installed store's SHA-256) even where the set digest and the installed store's stamp
    /// make that unneeded (`seedbuild fetch --full-check`). A full install always reads it whole.
    public var fullCheck = false

    /// An installer with no trusted key (set ``trustedKeys``, or ``allowUnsigned``), no app model, a
    /// 300 s deadline and the default transport.
    public init() {}

    /// What an install did: installed a release (and how it came), or found it installed already.
    public struct Result: Sendable {
        /// Whether the fetch changed the installed seed.
        public enum Outcome: String, Sendable {
            case installed
            /// The same data version is installed already.
            case alreadyInstalled
        }

        /// How an installed release came: by a delta applied to the installed store, or the full artifact.
        public enum Via: String, Sendable {
            case delta, full
        }

        /// Whether a release was installed, or the same data version was found installed already.
        public var outcome: Outcome
        /// The trusted key the manifest is signed by; nil when installed unsigned (``allowUnsigned``).
        public var signedBy: String?
        /// The installed store file, `DIR/<dataset>-<dataVersion>.sqlite`: what the app opens read-only.
        public var storePath: String
        /// The data version of the release now installed.
        public var dataVersion: Int64
        /// The release's manifest, as read and checked.
        public var manifest: Manifest
        /// When the release's model differs from the app's: the lightweight migration that opens it.
        public var migration: MigrationPlan?
        /// Whether the installed store was re-stamped on this device for the app's ``SeedInstaller/model``
        /// (the release was stamped for a merged model whose user entities differ from the app's): it
        /// opens directly under the app's model, with no migration.
        public var restamped: Bool = false
        /// How the release came; nil when nothing was installed (``Outcome/alreadyInstalled``).
        public var via: Via?
        /// Every byte fetched from the channel by this fetch: the pointer, the manifest, the delta, and
        /// the artifact after a fallback (read from a folder channel, for a folder).
        public var downloadedBytes: Int64 = 0
        /// Why a delta listed for, or expected by, the installed release was not used, when the release
        /// came by the full artifact although a release was installed.
        public var fallback: DeltaFallback?
    }

    /// Fetches the channel's current release and installs it in `directory`, on the calling thread.
    ///
    /// The checks run in this order, each before anything is downloaded that it could refuse:
    /// 1. a trusted key is given, or ``allowUnsigned`` is set;
    /// 2. `latest.json` and the manifest it names (each at most 64 KiB), the manifest at a path its
    ///    data version gives and matching the pointer's SHA-256;
    /// 3. the signature, by one of ``trustedKeys``, before any field is used;
    /// 4. the fields used in names and URLs (dataset, data version, SHA-256s, sizes), the pointer and
    ///    manifest agreeing, and the expiry;
    /// 5. rollback: an older data version than the installed one is refused, the same one is
    ///    ``Result/Outcome/alreadyInstalled``;
    /// 6. the release's model against ``model`` (equal hashes, a re-stamp, or an inferable migration);
    /// 7. under the folder's lock, rollback again; then the delta from the installed release if the
    ///    manifest lists one (falling back to the artifact on any failure, ``Result/fallback``), or the
    ///    artifact: its size and SHA-256, the inflated store's size and SHA-256, `quick_check`, and
    ///    the store's metadata against the manifest;
    /// 8. the switch: the store renamed into `DIR/<dataset>-<dataVersion>.sqlite`, then
    ///    `DIR/<dataset>.current` replaced atomically.
    ///
    /// Any failure leaves the installed seed in use; an artifact's partial download that failed on the
    /// network is kept, hidden in `directory`, for the next install to resume.
    /// - Parameters:
    ///   - channelURL: the release channel, `https://…/<dataset>/<model-version>/`, `file://…/` or a
    ///     folder path; a trailing `latest.json` is accepted.
    ///   - directory: the folder the seed is installed in (created if missing): the app's own, such as
    ///     Application Support; it holds the store, `<dataset>.current` and a lock file.
    /// - Returns: what was installed, from where, and how it came (``Result/via``).
    /// - Throws: ``InstallError`` saying which check refused the release; ``TransferError`` for the network.
    public func install(from channelURL: String, to directory: String) throws -> Result {
        try install(from: channelURL, to: directory, run: InstallRun(progress: { _ in }))
    }

    func install(from channelURL: String, to directory: String, run: InstallRun) throws -> Result {
        run.report(.checkingRelease)
        guard !trustedKeys.isEmpty || allowUnsigned else {
            throw InstallError(
                .signature,
                "\(channelURL): no trusted key given; pass the publisher's public key (--trusted-key, SeedInstaller.trustedKeys), or accept an unsigned channel explicitly (--allow-unsigned, SeedInstaller.allowUnsigned)"
            )
        }
        let deadline = Deadline(seconds: self.deadline)
        let channel = try ReleaseChannel(channelURL, transport: transport, deadline: deadline)
        let (pointer, manifest, manifestURL) = try readRelease(channel, run: run)
        let signedBy = trustedKeys.first { $0.verify(manifest) }?.keyID
        if !trustedKeys.isEmpty, signedBy == nil {
            throw InstallError(
                .signature,
                "\(manifestURL): no valid signature by a trusted key (key ids \(trustedKeys.map(\.keyID).joined(separator: ", "))); refusing it"
            )
        }
        let (dataset, dataVersion, artifact, store) = try checkFields(manifest, pointer: pointer, url: manifestURL)
        let state = InstallRecord(directory: directory, dataset: dataset)
        // Checked before anything is written, and again under the folder's lock (another install may have just ended).
        if let settled = try settled(state, dataVersion: dataVersion, manifest: manifest, url: manifestURL, signedBy: signedBy) {
            return settled.fetched(run)
        }
        let (plan, restamp) = try checkModel(manifest, url: manifestURL)
        let folder = InstallFolder(directory: directory, dataset: dataset)
        let lock = try folder.lock(until: deadline)
        defer { withExtendedLifetime(lock) {} }
        if let settled = try settled(state, dataVersion: dataVersion, manifest: manifest, url: manifestURL, signedBy: signedBy) {
            return settled.fetched(run)
        }
        try run.checkCancellation()
        var fallback: DeltaFallback?
        var installed: InstalledFile?
        if let current = state.current {
            let request = DeltaRequest(
                manifest: manifest, manifestURL: manifestURL, dataVersion: dataVersion, store: store, installed: current)
            do {
                installed = try installByDelta(
                    request, artifact: artifact, state: state, from: channel, into: folder, run: run, restampFor: restamp ? model : nil)
            } catch let error as CancellationError {
                throw error
            } catch let reason as DeltaFallback {
                fallback = reason
            } catch {
                fallback = DeltaFallback(.file, "\(error)")
            }
            // A cancelled install stops here, whatever the delta's outcome: no fallback download.
            try run.checkCancellation()
        }
        let file =
            try installed
            ?? download(
                artifact, store: store, manifest: manifest, from: channel, into: folder, dataVersion: dataVersion, run: run,
                restampFor: restamp ? model : nil)
        // The store is the release's byte for byte (its SHA-256 checked), unless re-stamped here.
        try state.switchTo(
            storeFile: file.name, dataVersion: dataVersion, contentDigest: manifest.values["contentDigest"]?.stringValue ?? "",
            storeSHA256: file.sha256,
            setDigest: restamp ? nil : manifest.values[SetDigest.manifestKey]?.stringValue)
        run.report(.installed)
        return Result(
            outcome: .installed, signedBy: signedBy, storePath: state.path(file.name), dataVersion: dataVersion, manifest: manifest,
            migration: plan,
            restamped: restamp, via: installed == nil ? .full : .delta, downloadedBytes: run.observer.receivedBytes, fallback: fallback)
    }

    /// Refuses a data version older than the installed one; the same one is installed already.
    private func settled(_ state: InstallRecord, dataVersion: Int64, manifest: Manifest, url: String, signedBy: String?) throws -> Result? {
        guard let installed = state.current else { return nil }
        if dataVersion < installed.dataVersion {
            throw InstallError(
                .rollback, "\(url): data version \(dataVersion) is older than the installed \(installed.dataVersion); refusing a rollback")
        }
        guard dataVersion == installed.dataVersion else { return nil }
        let storePath = state.path(installed.store)
        // Re-stamped when it was installed, as its metadata records.
        let restamped = (try? StoreMetadata.read(at: URL(fileURLWithPath: storePath)))?[StoreMetadata.Key.restampedFrom] != nil
        return Result(
            outcome: .alreadyInstalled, signedBy: signedBy, storePath: storePath, dataVersion: dataVersion, manifest: manifest,
            migration: nil,
            restamped: restamped)
    }

    /// The release's entity hashes must equal the app model's (every entity, Core Data's rule), or a
    /// lightweight migration must be inferable from the model the manifest carries — before downloading.
    /// What opening the release under the app's model takes: nothing (it was stamped for it), a
    /// re-stamp on this device (only entities outside the seed differ), or a lightweight migration.
    private func checkModel(_ manifest: Manifest, url: String) throws -> (plan: MigrationPlan?, restamp: Bool) {
        guard let model else { return (nil, false) }
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
        guard !differences.isEmpty else { return (nil, false) }
        // The app's other entities (its user model) differ, the seed's own do not: the data fits,
        // only the stamp does not. Re-stamped here, the seed opens under the app's model directly.
        if stamp.seedEntityDifferences(from: model, configuration: configuration)?.isEmpty == true {
            return (nil, true)
        }
        guard let releaseModel else {
            throw InstallError(
                .model,
                "\(url): the release's model differs from the app's for \(differences.map(\.description).joined(separator: ", ")) and the manifest carries no model to infer a migration from. Publish a release for this model version"
            )
        }
        do {
            return (try MappingInference.infer(from: releaseModel, to: model, configuration: configuration), false)
        } catch {
            throw InstallError(
                .model, "\(url): the release cannot be opened under the app's model: \(error.messages.joined(separator: "; "))")
        }
    }
}

extension SeedInstaller.Result {
    /// The result with the bytes `run` fetched.
    fileprivate func fetched(_ run: InstallRun) -> Self {
        var result = self
        result.downloadedBytes = run.observer.receivedBytes
        return result
    }
}
