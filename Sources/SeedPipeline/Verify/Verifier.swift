import Crypto
import Foundation
import GRDB
import SeedModel
import SeedStore

/// The verify stage: proves a built seed opens under the app's merged model — directly, or through
/// an inferred lightweight migration applied to a scratch copy — before anything is published.
public struct Verifier: Sendable {
    public init() {}

    /// - Parameters:
    ///   - artifact: a `.sqlite`, a `.sqlite.gz` or a `manifest.json` naming the artifact beside it.
    ///   - seedModels: the seed model versions to check, the current one first.
    ///   - userModels: the app's user models, merged with each seed model.
    ///   - otherUserModels: other versions of the user models (one set per app version), each merged
    ///     with the current seed model: every model an app in the field may open the seed under.
    public func verify(_ artifact: String, seedModels: [Model], userModels: [Model], otherUserModels: [[Model]] = []) throws
        -> VerificationReport
    {
        var report = VerificationReport(file: artifact)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var manifest: Manifest?
        guard let store = try storeFile(artifact, scratch: scratch.path, manifest: &manifest, report: &report),
            let metadata = try checkStore(
                store, model: seedModels.first.map { (try? Model.merged([$0] + userModels)) ?? $0 }, report: &report)
        else { return report }
        if let manifest {
            // What apps read from the manifest (row counts, hashes, data version) must be the store's.
            let differences = manifest.differences(from: metadata)
            report.check(
                "manifest metadata", differences.isEmpty,
                differences.isEmpty
                    ? "the store's metadata, field for field"
                    : "\(differences.joined(separator: "; ")); the manifest was edited or comes from another build: run seedbuild compress on the store again"
            )
            guard differences.isEmpty else { return report }
            // The signed set digest covers every table, metadata and schema included: recomputed from every row.
            if let stated = manifest.values[SetDigestStage.manifestKey]?.stringValue {
                let recomputed = try SetDigest.compute(of: store).description
                report.check(
                    "set digest", recomputed == stated,
                    recomputed == stated
                        ? "every row of every table and the schema, as the manifest states"
                        : "the store's rows give \(recomputed.prefix(26))…, the manifest states \(stated.prefix(26))…; a table was changed after the build: rebuild it, or run seedbuild compress on the store again"
                )
            }
        }
        for model in seedModels {
            report.models.append(
                try checkModel(
                    model, userModels: userModels, store: store, metadata: metadata, scratch: scratch.path,
                    labelUserModels: !otherUserModels.isEmpty))
        }
        if let current = seedModels.first {
            for users in otherUserModels {
                report.models.append(
                    try checkModel(
                        current, userModels: users, store: store, metadata: metadata, scratch: scratch.path, labelUserModels: true))
            }
        }
        return report
    }

    /// Step 1: the store file to open, inflated and checked against the manifest when there is one.
    private func storeFile(_ artifact: String, scratch: String, manifest found: inout Manifest?, report: inout VerificationReport) throws
        -> String?
    {
        guard FileManager.default.fileExists(atPath: artifact) else {
            throw StoreError(.notFound, path: artifact, "no such file; give a .sqlite, .sqlite.gz or manifest.json")
        }
        var compressed = artifact
        var expectedStore: Manifest.FileEntry?
        var manifest: Manifest?
        if artifact.hasSuffix(".json") {
            let read = try Manifest(data: FileManager.default.contents(atPath: artifact) ?? Data(), path: artifact)
            guard let entry = read.artifact, let storeEntry = read.store else {
                report.check("manifest", false, "the manifest names no artifact or store")
                return nil
            }
            compressed = ((artifact as NSString).deletingLastPathComponent as NSString).appendingPathComponent(entry.fileName)
            guard FileManager.default.fileExists(atPath: compressed) else {
                report.check("artifact present", false, "\(compressed) is missing")
                return nil
            }
            manifest = read
            found = read
            expectedStore = storeEntry
        }
        let isGzip = StoreFile.isGzip(compressed)
        guard isGzip || manifest != nil else { return compressed }
        // The artifact's and the store beside it's SHA-256s on a second thread while this one inflates
        // (bounded by the manifest's store size, so a wrong artifact costs no more than a right one);
        // the checks are reported in their order, and nothing inflated counts before the artifact's pass.
        let side = BackgroundWork { [compressed, manifest] () throws -> (FileDigest, String?)? in
            guard let manifest else { return nil }
            return (try FileDigest(of: compressed), try MatchingSet.storeMismatch(manifestPath: artifact, manifest: manifest))
        }
        let inflated = (scratch as NSString).appendingPathComponent("store.sqlite")
        var hasher = SHA256()
        let inflation =
            !isGzip
            ? nil
            : Result { () throws(GzipError) -> Int64 in
                // A manifest's segment table is used, so a table that does not fit its artifact is never published.
                try GzipInflater.inflate(
                    compressed, to: inflated, maxOutputBytes: expectedStore?.bytes, segments: manifest?.artifact?.segments
                ) {
                    hasher.update(bufferPointer: $0)
                }
            }
        let sides = try side.value()
        if let (digest, _) = sides, let entry = manifest?.artifact {
            report.check("artifact size", digest.bytes == entry.bytes, "\(digest.bytes) bytes, manifest says \(entry.bytes)")
            report.check("artifact sha256", digest.sha256 == entry.sha256, "\(digest.sha256), manifest says \(entry.sha256)")
            guard digest.bytes == entry.bytes, digest.sha256 == entry.sha256 else { return nil }
        }
        guard let inflation else { return compressed }
        switch inflation {
        case .success(let bytes):
            let sha = Data(hasher.finalize()).hexString
            report.check("inflate", true, "\(bytes) bytes")
            if let expectedStore {
                report.check("store size", bytes == expectedStore.bytes, "\(bytes) bytes, manifest says \(expectedStore.bytes)")
                report.check("store sha256", sha == expectedStore.sha256, "\(sha), manifest says \(expectedStore.sha256)")
                guard bytes == expectedStore.bytes, sha == expectedStore.sha256 else { return nil }
            }
        case .failure(let error):
            report.check("inflate", false, error.reason)
            return nil
        }
        if let (_, mismatch) = sides {
            report.check("store beside", mismatch == nil, mismatch ?? "absent, or the store the manifest describes")
            guard mismatch == nil else { return nil }
        }
        return inflated
    }

    /// Step 2: opens read-only and immutable; quick_check, foreign keys, application id, row counts.
    /// - Parameter model: the model to lay a Core Data store out from when it embeds none (one
    ///   Apple's framework wrote: its cached model, if any, is that of its last writable open).
    private func checkStore(_ path: String, model: Model?, report: inout VerificationReport) throws -> StoreMetadata? {
        let queue: DatabaseQueue
        do {
            queue = try StoreDatabase.openReadOnly(path)
        } catch {
            report.check("open", false, error.message)
            return nil
        }
        defer { try? queue.close() }
        return try queue.read { db -> StoreMetadata? in
            let layout = try StoreDatabase.layout(of: db)
            if layout == .plain {
                let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                report.check(
                    "application_id", applicationID == StoreMetadata.applicationID,
                    String(format: "0x%08X, seed stores have 0x%08X", applicationID, StoreMetadata.applicationID))
                guard applicationID == StoreMetadata.applicationID else { return nil }
            }
            let quick = try String.fetchAll(db, sql: "PRAGMA quick_check")
            report.check("quick_check", quick == ["ok"], quick.prefix(3).joined(separator: "; "))
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
            report.check("foreign_key_check", violations == 0, "\(violations) rows with a missing parent")
            let metadata = try StoreMetadata.read(from: db)
            var schema = try? StoreDatabase.embeddedSchema(db, path: path)
            if schema == nil, layout == .coreData, let model, let configuration = metadata.configuration ?? model.configurationNames.first {
                schema = try? StoreSchema(
                    model: model, configuration: configuration, layout: .coreData, conventions: CoreDataConventions.read(from: db))
            }
            if layout == .coreData {
                try checkCoreDataKeys(db, schema: schema, builtHere: metadata[StoreMetadata.Key.generator] != nil, report: &report)
            }
            for (entity, expected) in metadata.rowCounts.sorted(by: { $0.key < $1.key }) {
                let count =
                    try schema?.rowCount(of: entity, in: db)
                    ?? Int64.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(entity))") ?? -1
                report.check("rows \(entity)", count == expected, "\(count) rows, metadata says \(expected)")
            }
            return report.checks.allSatisfy(\.passed) ? metadata : nil
        }
    }

    /// Core Data's bookkeeping: `Z_PRIMARYKEY` lists every entity of the stamped model with its
    /// number and parent, and each root's `Z_MAX` covers the highest `Z_PK` (else new rows would collide)
    /// — for a seed seedbuild built; Apple's own stores are seen with `Z_MAX` 0 on filled tables.
    private func checkCoreDataKeys(_ db: Database, schema: StoreSchema?, builtHere: Bool, report: inout VerificationReport) throws {
        guard let schema, let coreData = schema.coreData else {
            report.check("Z_PRIMARYKEY", false, "the store has no embedded model to check its entity numbers against")
            return
        }
        let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        // Core Data keeps an entity's old name there after a migration renamed it.
        let renamed = Dictionary(
            schema.wholeModel.entities.compactMap { entity in entity.renamingIdentifier.map { ($0, entity.name) } },
            uniquingKeysWith: { first, _ in first })
        let stored = rows.filter { ($0[0] as Int) < 16001 }.map { row in
            CoreDataSchema.PrimaryKeyRow(entity: row[0], name: renamed[row[1] as String] ?? row[1], superEntity: row[2])
        }
        // Against the numbers the model gives (the schema's own follow the store's Z_PRIMARYKEY).
        let expected = try CoreDataSchema(
            model: schema.wholeModel, configuration: schema.configuration,
            conventions: CoreDataConventions(frameworkVersion: coreData.conventions.frameworkVersion)
        ).primaryKeyRows
        let differing = zip(stored, expected).filter { $0 != $1 }.count + abs(stored.count - expected.count)
        report.check(
            "Z_PRIMARYKEY", differing == 0,
            "\(stored.count) entities, the model has \(expected.count); \(differing) differ in number, name or parent")
        for table in schema.tables where builtHere {
            let highest = try Int64.fetchOne(db, sql: "SELECT coalesce(max(Z_PK), 0) FROM \(quoteIdentifier(table.name))") ?? 0
            let max = rows.first { ($0[1] as String) == table.entity.name }.map { $0[3] as Int64 } ?? -1
            report.check("Z_MAX \(table.entity.name)", max >= highest, "Z_MAX \(max), highest Z_PK \(highest)")
        }
    }

}
