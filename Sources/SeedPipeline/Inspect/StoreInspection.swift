import Crypto
import Foundation
import SeedInstall
import SeedStore

/// What a seed file holds, read without a coordinator: a store, a compressed store, or a manifest.
package struct StoreInspection: Sendable {
    package enum Kind: String, Sendable {
        case store = "SQLite store"
        case compressedStore = "gzip-compressed SQLite store"
        case manifest = "manifest"
    }

    package var path: String
    package var kind: Kind
    package var fileBytes: Int64
    package var fileSHA256: String
    /// The store's metadata (stores and compressed stores).
    package var metadata: StoreMetadata?
    /// The uncompressed store's size and SHA-256 (compressed stores).
    package var storeBytes: Int64?
    package var storeSHA256: String?
    package var manifest: Manifest?
    /// The store's set digest (``SetDigest``) recomputed from its rows (stores and compressed stores):
    /// what a manifest's `setDigest` must be for this store.
    package var setDigest: String?
    /// Why the store carries no model to read its objects with (a Core Data store that caches
    /// none), or nil when it carries one or is not a store.
    package var missingModel: String?

    /// Reads a `.sqlite`, a `.sqlite.gz` (inflated to a temporary file) or a `manifest.json`.
    /// - Throws: ``StoreError``: missing file (not found), or not a seed file with the reason (not a seed store).
    package static func inspect(_ path: String) throws(StoreError) -> StoreInspection {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.notFound, path: path, "no such file; check the path")
        }
        let digest = try FileDigest(of: path)
        let (bytes, sha) = (digest.bytes, digest.sha256)
        if StoreFile.isGzip(path) {
            var hasher = SHA256()
            var inflated: Int64 = 0
            let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("seedstore-\(UUID().uuidString).sqlite").path
            defer { try? FileManager.default.removeItem(atPath: temporary) }
            do {
                inflated = try GzipInflater.inflate(path, to: temporary) { hasher.update(bufferPointer: $0) }
            } catch {
                throw StoreError(.notASeedStore, path: path, error.reason)
            }
            let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: temporary))
            return StoreInspection(
                path: path, kind: .compressedStore, fileBytes: bytes, fileSHA256: sha, metadata: metadata,
                storeBytes: inflated, storeSHA256: Data(hasher.finalize()).hexString, setDigest: try setDigest(of: temporary, named: path))
        }
        if path.hasSuffix(".json") {
            let data = FileManager.default.contents(atPath: path) ?? Data()
            return StoreInspection(
                path: path, kind: .manifest, fileBytes: bytes, fileSHA256: sha, manifest: try Manifest(data: data, path: path))
        }
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: path))
        var inspection = StoreInspection(path: path, kind: .store, fileBytes: bytes, fileSHA256: sha, metadata: metadata)
        inspection.setDigest = try setDigest(of: path, named: path)
        inspection.missingModel = missingModel(path)
        return inspection
    }

    private static func setDigest(of store: String, named path: String) throws(StoreError) -> String {
        do {
            return try SetDigest.compute(of: store).description
        } catch {
            // The compressed store's temporary file is named as what was inspected.
            throw StoreError(error.kind, path: path, error.message, sql: error.sql)
        }
    }

    /// The reason an SQLite store carries no model, if it carries none.
    private static func missingModel(_ path: String) -> String? {
        guard let queue = try? StoreDatabase.openReadOnly(path) else { return nil }
        defer { try? queue.close() }
        do {
            _ = try queue.read { db in try StoreDatabase.embeddedModel(db, path: path) }
            return nil
        } catch let error as StoreError where error.kind == .noModel {
            return error.message
        } catch {
            return nil
        }
    }

    /// One JSON object: the metadata keys (or the manifest's fields) and `inspectedFile` with sizes and checksums.
    package var jsonObject: JSONValue {
        var object = manifest?.values ?? metadata?.values ?? [:]
        var file: [String: JSONValue] = [
            "path": .string(path), "kind": .string(kind.rawValue), "bytes": .integer(fileBytes), "sha256": .string(fileSHA256),
        ]
        if let storeBytes { file["storeBytes"] = .integer(storeBytes) }
        if let storeSHA256 { file["storeSHA256"] = .string(storeSHA256) }
        if let setDigest { file["setDigest"] = .string(setDigest) }
        if let missingModel { file["missingModel"] = .string(missingModel) }
        object["inspectedFile"] = .object(file)
        return .object(object)
    }
}
