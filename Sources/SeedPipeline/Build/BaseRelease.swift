import Crypto
import Foundation
import GRDB
import SeedModel
import SeedStore

/// The release a build follows (`build --base`), so that its objects keep their numbers (`Z_PK`)
/// and the store its UUID: Core Data's object IDs (`x-coredata://<store UUID>/<Entity>/p<Z_PK>`)
/// then survive from one nightly release to the next.
///
/// The base is a store (`.sqlite`), an artifact (`.sqlite.gz`), a build's `manifest.json` (its
/// artifact beside it), or a channel (a folder, `file://` or `http(s)://` URL of
/// `<dataset>/<model-version>/`), whose current release is fetched and checked as an app's fetch
/// checks it. It must be of the same dataset and seed model version, and pass `quick_check`.
struct BaseRelease: Sendable {
    /// The base store, read-only (a temporary copy when it came compressed or from a channel).
    let path: String
    let metadata: StoreMetadata
    /// Root entity → the highest key the channel ever issued for it (Core Data's `Z_MAX`, the plain
    /// layout's ``BaseRelease/highWaterKey`` metadata): new objects are numbered above it.
    let highWater: [String: Int64]
    /// Where the base came from, for messages.
    let location: String
    /// The base's manifest, when it was given as a manifest.json or fetched from a channel: its store's
    /// SHA-256 and the deltas published with it, which the build composes into its own (``DeltaStage``).
    let manifest: Manifest?
    /// Where the deltas that manifest lists are.
    let deltaLocation: DeltaLocation?
    /// The trusted key the base's manifest is signed by (``BaseTrust``); nil for an unsigned base.
    let signedBy: String?
    /// Removed with the base: the temporary folder a fetched or inflated base was put in.
    private let temporary: String?

    /// The plain layout's record of the highest key issued per table, so gaps at the top are never reused.
    static let highWaterKey = "keyHighWater"
    /// The dataset, so a base of another one is refused.
    static let datasetKey = "dataset"

    /// Opens and checks the base for `request`.
    /// - Throws: ``IngestError`` naming the base and the check it failed, saying to pass `--no-base`
    ///   for a first release of a new channel.
    static func open(_ location: String, for request: BuildRequest, schema: StoreSchema) throws -> BaseRelease {
        var located = try locate(location, request: request)
        do {
            try located.keepApart(from: request.outputDirectory)
        } catch {
            if let temporary = located.temporary { try? FileManager.default.removeItem(atPath: temporary) }
            throw IngestError(
                .cannotCreateOutput, file: location,
                "the base lies in the output folder, which this build replaces, and cannot be copied aside: \(error); give a base outside \(request.outputDirectory)"
            )
        }
        let (path, temporary) = (located.path, located.temporary)
        do {
            let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: path))
            let base = BaseRelease(
                path: path, metadata: metadata, highWater: try highWater(path, schema: schema, location: location), location: location,
                manifest: located.manifest, deltaLocation: located.deltas, signedBy: located.signedBy, temporary: temporary)
            try base.check(request: request, schema: schema, quickCheck: !located.checked)
            return base
        } catch {
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            if let error = error as? IngestError { throw error }
            throw IngestError(
                .badData, file: location,
                "the base release cannot be read: \(error); give another --base, or --no-base to number the objects afresh")
        }
    }

    /// Removes what opening the base left in temporary folders.
    func close() {
        if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
    }

    /// The deltas of a base's manifest: beside a manifest.json by their `fileName`, or in the
    /// channel at `ReleasePointer.deltaPath(sha256:)`.
    enum DeltaLocation: Sendable, Equatable {
        case folder(String)
        case channel(String)
    }

    /// A base found: its store as a local file, the temporary folder holding it, its manifest and deltas.
    private struct Located {
        var path: String
        var temporary: String?
        var manifest: Manifest? = nil
        var deltas: DeltaLocation? = nil
        /// The trusted key its manifest is signed by.
        var signedBy: String? = nil
        /// Whether `quick_check` passed already (the installer's, for a base fetched from its channel).
        var checked = false

        /// A base inside `output` (last night's `out/postcodes.sqlite`, or its `manifest.json` with the
        /// deltas beside it) would be replaced or removed by this build before its deltas are made: the
        /// store and those deltas are copied to a temporary folder first.
        mutating func keepApart(from output: String) throws {
            let folder = URL(fileURLWithPath: output).standardizedFileURL.path
            let inside = { (path: String) in
                let standard = URL(fileURLWithPath: path).standardizedFileURL.path
                return standard == folder || standard.hasPrefix(folder + "/")
            }
            let needsStore = temporary == nil && inside(path)
            var deltaFolder: String?
            if case .folder(let beside)? = deltas, inside(beside) { deltaFolder = beside }
            guard needsStore || deltaFolder != nil else { return }
            let aside = temporary ?? BaseRelease.temporaryFolder()
            try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
            temporary = aside
            if needsStore {
                // A second name for the same file where the folders share a file system (the build
                // writes its store under a new name and renames it: this one keeps the old bytes).
                let copy = (aside as NSString).appendingPathComponent("base.sqlite")
                if link(path, copy) != 0 { try FileManager.default.copyItem(atPath: path, toPath: copy) }
                path = copy
            }
            if let deltaFolder {
                let copies = (aside as NSString).appendingPathComponent("deltas")
                try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
                for entry in manifest?.deltas ?? [] where PendingDeltas.isPlainFileName(entry.fileName) {
                    let source = (deltaFolder as NSString).appendingPathComponent(entry.fileName)
                    guard FileManager.default.fileExists(atPath: source) else { continue }
                    try FileManager.default.copyItem(atPath: source, toPath: (copies as NSString).appendingPathComponent(entry.fileName))
                }
                deltas = .folder(copies)
            }
        }
    }

    /// The path of a new folder for a base's temporary files (not created).
    static func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-base-\(UUID().uuidString)").path
    }

    /// The base's store as a local file: as it is, inflated, or fetched from its channel.
    private static func locate(_ location: String, request: BuildRequest) throws -> Located {
        // A URL other than file:// is a channel; files are read where they are.
        if location.contains("://"), !location.hasPrefix("file://") {
            return try fetch(channel: location, request: request)
        }
        let path = location.hasPrefix("file://") ? (URL(string: location)?.path ?? String(location.dropFirst(7))) : location
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw IngestError(.missingInput, file: location, "no such base release; check the path, or build with --no-base")
        }
        if isFolder.boolValue { return try fetch(channel: path, request: request) }
        if path.hasSuffix(".json") {
            let manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
            let signedBy = try request.baseTrust.check(manifest, at: path)
            guard let entry = manifest.artifact, let store = manifest.store else {
                throw IngestError(
                    .badData, file: path, "the base manifest names no artifact or store; give its channel as --base, or --no-base")
            }
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            let (inflated, temporary) = try inflate(folder.appendingPathComponent(entry.fileName).path, expected: (entry, store))
            return Located(path: inflated, temporary: temporary, manifest: manifest, deltas: .folder(folder.path), signedBy: signedBy)
        }
        try request.baseTrust.checkUnsigned(at: location)
        if StoreFile.isGzip(path) {
            let (store, temporary) = try inflate(path, expected: nil)
            return Located(path: store, temporary: temporary)
        }
        return Located(path: path, temporary: nil)
    }

    /// Inflates an artifact into a temporary folder; with its manifest's entries, the artifact's and
    /// the store's sizes and SHA-256s must be the stated ones, and nothing past the stated store size is written.
    private static func inflate(_ artifact: String, expected: (artifact: Manifest.FileEntry, store: Manifest.FileEntry)?) throws -> (
        String, String?
    ) {
        if let expected {
            let digest = try FileDigest(of: artifact)
            guard digest.matches(bytes: expected.artifact.bytes, sha256: expected.artifact.sha256) else {
                throw IngestError(
                    .badData, file: artifact,
                    "the base artifact is not its manifest's: \(digest.mismatch(bytes: expected.artifact.bytes, sha256: expected.artifact.sha256)); give an intact base, or --no-base"
                )
            }
        }
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("base.sqlite")
        do {
            _ = try GzipInflater.inflate(artifact, to: path, maxOutputBytes: expected?.store.bytes)
            if let store = expected?.store {
                let digest = try FileDigest(of: path)
                guard digest.matches(bytes: store.bytes, sha256: store.sha256) else {
                    throw IngestError(
                        .badData, file: artifact,
                        "the base store inflated from it is not its manifest's: \(digest.mismatch(bytes: store.bytes, sha256: store.sha256)); give an intact base, or --no-base"
                    )
                }
            }
        } catch let error as IngestError {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        } catch let error as GzipError {
            try? FileManager.default.removeItem(atPath: folder)
            throw IngestError(
                .badData, file: artifact, "the base artifact does not inflate (\(error.reason)); give an intact base, or --no-base")
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw IngestError(.ioFailure, file: artifact, "the base artifact cannot be inflated: \(error)")
        }
        return (path, folder)
    }

    /// The channel's current release, installed into a temporary folder with every check an app's fetch
    /// makes — unless the output folder still holds that release's store, byte for byte (last night's
    /// build of the same job): then that is the base, and nothing is downloaded.
    private static func fetch(channel: String, request: BuildRequest) throws -> Located {
        if let kept = keptRelease(of: channel, request: request) { return kept }
        let folder = temporaryFolder()
        let trust = request.baseTrust
        var installer = SeedInstaller()
        // Checked as an app's fetch checks it: the signature by a key the build trusts before anything
        // is downloaded, then every size and hash, and quick_check. Only --allow-unsigned-base lets an
        // unsigned one through, and then a signature by a key not trusted is still refused below.
        if trust.requiresSignature && !trust.allowsUnsignedBase {
            installer.trustedKeys = trust.keys
        } else {
            installer.allowUnsigned = true
        }
        do {
            let installed = try installer.install(from: channel, to: folder)
            let signedBy = try trust.check(installed.manifest, at: channel)
            return Located(
                path: installed.storePath, temporary: folder, manifest: installed.manifest, deltas: .channel(channel), signedBy: signedBy,
                checked: true)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw Self.fetchFailure(error, channel: channel, trust: trust)
        }
    }

    /// Why a channel's release cannot be the base: refused (exit 65) when it fails a check, unavailable
    /// (exit 75) when the channel cannot be read now, so the nightly job is retried rather than restarted.
    private static func fetchFailure(_ error: Error, channel: String, trust: BaseTrust) -> IngestError {
        switch error {
        case let error as IngestError:
            return error
        case let error as InstallError where error.kind == .signature:
            return IngestError(
                .badData, file: channel,
                "the base release is refused: \(error); this build trusts keys \(trust.keys.map(\.keyID).joined(separator: ", ")). Give the key that signed the channel with --trusted-key, fix the channel, pass --allow-unsigned-base once if the channel was unsigned until now, or build with --no-base"
            )
        case let error as InstallError where error.kind == .noRelease:
            return IngestError(
                .unavailable, file: channel,
                "the channel's current release cannot be read: \(error); fix the channel, or build with --no-base to start it afresh")
        case let error as TransferError where error.isTransient || error.kind == .status(404):
            return IngestError(
                .unavailable, file: channel,
                "the base release could not be fetched: \(error); try again later, or build with --no-base to start the channel afresh")
        default:
            return IngestError(
                .badData, file: channel,
                "the base release could not be fetched from its channel: \(error); fix the channel, or build with --no-base")
        }
    }

    /// The store in the output folder, when it is the channel's current release: its SHA-256 the one
    /// the current manifest states (the manifest the pointer names, with the SHA-256 it names). Nil
    /// whenever anything differs or cannot be read: the release is then fetched.
    private static func keptRelease(of channel: String, request: BuildRequest) -> Located? {
        guard FileManager.default.fileExists(atPath: request.storePath),
            let source = try? ReleaseChannel(channel),
            let pointerData = try? source.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes),
            let pointer = try? ReleasePointer(data: pointerData, source: channel), pointer.dataset == request.dataset,
            ReleasePointer.isManifestPath(pointer.manifest, for: pointer.dataVersion),
            let manifestData = try? source.read(pointer.manifest, maxBytes: ReleasePointer.maxBytes),
            FileDigest(of: manifestData).sha256 == pointer.manifestSHA256,
            let manifest = try? Manifest(data: manifestData, path: source.describe(pointer.manifest)), let store = manifest.store,
            case .success(let signedBy) = Result(catching: { () throws(IngestError) in
                try request.baseTrust.check(manifest, at: source.describe(pointer.manifest))
            }),
            let local = try? FileDigest(of: request.storePath), local.matches(bytes: store.bytes, sha256: store.sha256)
        else { return nil }
        // The published store's bytes, checked when it was built and published: no quick_check again.
        return Located(
            path: request.storePath, temporary: nil, manifest: manifest, deltas: .channel(channel), signedBy: signedBy, checked: true)
    }

    /// The highest key issued per root entity: `Z_MAX` in Core Data's layout, else the plain
    /// layout's recorded high-water marks or, for a store without them, its highest `Z_PK`; each
    /// bounded by what the base's rows make plausible (``plausibleHighWater(rows:)``).
    private static func highWater(_ path: String, schema: StoreSchema, location: String) throws -> [String: Int64] {
        let queue = try StoreDatabase.openReadOnly(path)
        defer { try? queue.close() }
        return try queue.read { db in
            var marks: [String: Int64] = [:]
            var rows: [String: Int64] = [:]
            for table in schema.tables where table.primaryKey == .rowid {
                guard try db.tableExists(table.name) else { continue }
                let key = quoteIdentifier(table.keyColumn)
                let row = try Row.fetchOne(db, sql: "SELECT coalesce(max(\(key)), 0), count(*) FROM \(quoteIdentifier(table.name))")
                marks[table.entity.name] = max(marks[table.entity.name] ?? 0, row?[0] as Int64? ?? 0)
                rows[table.entity.name, default: 0] += row?[1] as Int64? ?? 0
            }
            if try db.tableExists("Z_PRIMARYKEY") {
                // A number above Z_MAX (a store not written by Core Data's rules) is still never issued again.
                for row in try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_SUPER = 0") {
                    let (entity, issued) = (row[0] as String? ?? "", row[1] as Int64? ?? 0)
                    marks[entity] = max(marks[entity] ?? 0, issued)
                }
            } else {
                let recorded = try StoreMetadata.read(from: db)[highWaterKey]?.objectValue ?? [:]
                for (entity, value) in recorded { marks[entity] = max(marks[entity] ?? 0, value.integerValue ?? 0) }
            }
            for (entity, mark) in marks {
                let count = rows[entity] ?? 0
                let bound = plausibleHighWater(rows: count)
                guard mark >= 0, mark <= bound else {
                    throw IngestError(
                        .badData, file: location,
                        "the base release says \(mark) numbers were issued for \(entity), which holds \(count) rows (at most \(bound) is plausible: \(plausibleMultiple)× the rows + \(plausibleSlack)); the base is damaged or forged. Give a verified release as --base, or --no-base to number every object afresh"
                    )
                }
            }
            return marks
        }
    }

    /// How many numbers a channel may have issued per row its current release holds, plus ``plausibleSlack``:
    /// nights remove rows and never reuse their numbers, so the mark outgrows the rows, but not by this.
    static let plausibleMultiple: Int64 = 16
    static let plausibleSlack: Int64 = 1 << 24

    /// The highest mark a base holding `rows` rows of an entity may state. It bounds the numbers a
    /// build issues and the memory ``BaseNumbers`` takes.
    static func plausibleHighWater(rows: Int64) -> Int64 {
        rows.multipliedReportingOverflow(by: plausibleMultiple).partialValue.addingReportingOverflow(plausibleSlack).partialValue
    }

    /// Refuses a base that is not a release of this build's channel, or not sound (`quick_check`, unless the
    /// installer ran it on a base fetched from its channel).
    private func check(request: BuildRequest, schema: StoreSchema, quickCheck: Bool) throws {
        let refuse = { (why: String) in
            IngestError(
                .badData, file: location,
                "the base release \(why), so its objects' numbers cannot be followed; give a release of this channel as --base, or --no-base to number them afresh (a new channel)"
            )
        }
        if let dataset = metadata[Self.datasetKey]?.stringValue, dataset != request.dataset {
            throw refuse("is of dataset \(dataset), not \(request.dataset)")
        }
        if let layout = try? StoreFile.layout(at: path), layout != schema.layout {
            throw refuse("is in the \(layout.name) layout, not the \(schema.layout.name) one this build writes")
        }
        // The seed's own entities must be the same model version: their hashes equal.
        let ours = schema.wholeModel.entityVersionHashes
        let stored = metadata.versionHashes
        let differing = schema.model.entities.map(\.name).filter { stored[$0] != ours[$0] }.sorted()
        if !differing.isEmpty {
            throw refuse("is of another seed model version (\(differing.joined(separator: ", ")) differ)")
        }
        guard quickCheck else { return }
        let queue = try StoreDatabase.openReadOnly(path)
        defer { try? queue.close() }
        let problems = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        if problems != ["ok"] {
            throw refuse("fails quick_check (\(problems.prefix(3).joined(separator: "; ")))")
        }
    }
}

extension BaseRelease {
    /// The store UUID of every release of a channel (`<dataset>/<model-version>/`), upper-case as Core
    /// Data writes it: derived from the channel, not the content, so object IDs keep their host part.
    static func storeUUID(dataset: String, modelVersion: String) -> String {
        var bytes = [UInt8](SHA256.hash(data: Data("seedbuild store UUID\u{0}\(dataset)/\(modelVersion)".utf8)).prefix(16))
        // RFC 9562 version 8 (a name-based UUID of our own) and variant bits.
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        ).uuidString.uppercased()
    }

    /// The channel's model-version part, as the publisher names it: the seed model's first version
    /// identifier, else the first 12 hex digits of its hashes' checksum.
    static func modelVersion(identifiers: [String], versionHashes: [String: Data]) -> String {
        identifiers.first ?? String((Data(base64Encoded: Model.versionChecksum(of: versionHashes)) ?? Data()).hexString.prefix(12))
    }
}
