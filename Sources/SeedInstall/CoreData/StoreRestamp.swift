import Foundation
import SeedModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stamps a seed for an app's own model, so Core Data opens it under that model with no migration.
///
/// ```swift
/// try StoreRestamp.restamp("postcodes-7.sqlite", for: appModel, output: "postcodes-7-app.sqlite")
/// ```
/// The same rows, in the same layout, stamped with the hashes of every entity of `model` and, in
/// Core Data's layout, numbered as `model` numbers entities: `Z_PRIMARYKEY`, each row's `Z_ENT`,
/// the to-one entity columns' values, and the names that embed entity numbers (`Z<n>_<REL>` and
/// `Z<n><REL>` columns, `Z_<n><REL>` join tables and their columns and indexes). Only when the
/// seed's own entities (its configuration's) have the same hashes in `model` as in the store: their
/// data is then exactly what the app's model describes, and only the app's other entities (its user
/// model) moved on. Core Data's rule and layout: `docs/coredata.md` and `docs/store-format.md`, "Core Data's layout".
public enum StoreRestamp {
    /// Re-stamps `source` for `model`, writing `output` atomically (nothing under that name until it
    /// is whole); `source` is never changed.
    /// - Throws: ``StoreError`` (`refused`) naming each seed entity whose hash differs; others when
    ///   the source cannot be read or the output written.
    @discardableResult
    public static func restamp(_ source: String, for model: Model, output: String, outputMode: mode_t = 0o444) throws(StoreError)
        -> StoreMetadata
    {
        if FileManager.default.fileExists(atPath: source) { try StoreFile.foldWriteAheadLog(source) }
        do {
            return try AtomicFile.changeCopy(of: source, to: output, mode: outputMode) { temporary in
                try restamp(inPlace: temporary, for: model)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            // Unreached: the copy and the re-stamp throw StoreError only.
            throw StoreError(.io, path: output, "cannot re-stamp the store: \(error)")
        }
    }

    /// Re-stamps a store file this process owns (the installer's checked temporary file), in place.
    @discardableResult
    package static func restamp(inPlace path: String, for model: Model) throws(StoreError) -> StoreMetadata {
        let store = try StoreConnection(path: path, mode: .writable)
        try StoreFile.checkSeedStore(store)
        let metadata = try StoreMetadata.read(from: store)
        let configuration = metadata.configuration ?? SeedModel.Configuration.defaultName
        guard let differing = metadata.seedEntityDifferences(from: model, configuration: configuration) else {
            throw StoreError(
                .refused, path: path,
                "the app's model has no configuration \(configuration) for the seed, or the seed has an older hash encoding; publish a seed built for this model version"
            )
        }
        guard differing.isEmpty else {
            throw StoreError(
                .refused, path: path,
                "the seed's entities \(differing.joined(separator: ", ")) differ from the app's model, so re-stamping would misdescribe them; publish a seed built for this model version"
            )
        }
        var restamped = metadata
        restamped[StoreMetadata.Key.versionHashes] = .object(model.entityVersionHashes.mapValues { .string($0.hexString) })
        restamped[StoreMetadata.Key.modelVersionIdentifiers] = .array(model.versionIdentifiers.map(JSONValue.string))
        restamped[StoreMetadata.Key.storeFormatVersion] = .integer(Int64(StoreMetadata.storeFormatVersion))
        restamped[StoreMetadata.Key.restampedFrom] = .object(["versionHashes": metadata[StoreMetadata.Key.versionHashes] ?? .null])
        let layout = try StoreFile.layout(of: store)
        let rewritten = try store.inTransaction { () throws(StoreError) -> Bool in
            guard layout == .coreData else {
                try stampPlain(store, metadata: &restamped, model: model, configuration: configuration)
                return false
            }
            return try CoreDataRenumbering(store: store, model: model, configuration: configuration).stamp(&restamped)
        }
        if rewritten {
            // Statistics for the renamed tables and indexes, and the pages the rebuilt join tables freed
            // (Core Data's stores use incremental auto-vacuum).
            try store.execute("PRAGMA analysis_limit = 2000; ANALYZE; PRAGMA incremental_vacuum")
        }
        return restamped
    }

    /// The plain layout names nothing by entity number: the metadata and the embedded model only.
    private static func stampPlain(_ store: StoreConnection, metadata: inout StoreMetadata, model: Model, configuration: String)
        throws(StoreError)
    {
        let json: String
        do {
            json = String(decoding: try model.restricted(to: configuration).canonicalJSON(configuration: configuration), as: UTF8.self)
        } catch {
            throw StoreError(.refused, path: store.path, "cannot embed the app's model: \(error)")
        }
        // The rows are the same, so is their digest, and the UUID stays the channel's (Core Data's object IDs name it).
        try metadata.write(to: store)
        try StoreMetadata.writeEmbeddedModel(json, configuration: configuration, to: store)
    }
}
