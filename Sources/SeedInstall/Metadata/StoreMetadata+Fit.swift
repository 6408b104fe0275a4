import Foundation
import SeedModel

extension StoreMetadata {
    /// The hash encoding the store was stamped with: 2 is Core Data's; 1 (or none) seedbuild's first own one.
    package var hashEncodingVersion: Int {
        values[Key.hashEncodingVersion]?.integerValue.map(Int.init) ?? 1
    }

    /// The entities whose hashes keep the store from opening under `model` with no migration, and why;
    /// empty when it fits.
    ///
    /// Core Data's rule: the stored hashes must equal the hashes of every entity of `model`, the
    /// model the coordinator uses. A store stamped with the first encoding (before Core Data's
    /// hashes) is re-hashed from the model embedded in it and, as it was stamped, compared for its
    /// configuration's entities only.
    /// - Parameters:
    ///   - model: the model the coordinator uses (the merged model, for an app with its own entities).
    ///   - embeddedModel: the model the store was built with, when at hand; it names the
    ///   properties that changed, and is required for a store of the first encoding.
    public func hashDifferences(from model: Model, embeddedModel: Model?) -> [Model.HashDifference] {
        guard hashEncodingVersion < Model.hashEncodingVersion else {
            return model.hashDifferences(stored: versionHashes, storedModel: embeddedModel)
        }
        guard let embeddedModel, let configuration, let expected = try? model.restricted(to: configuration) else {
            return versionHashes.keys.sorted().map {
                Model.HashDifference(
                    entity: $0, reasons: ["stamped with an older hash encoding and no embedded model to re-hash; rebuild the store"])
            }
        }
        return expected.hashDifferences(stored: embeddedModel.entityVersionHashes, storedModel: embeddedModel)
    }

    /// The seed's own entities (those of `configuration` in `model`) whose stored hashes differ from
    /// the model's, by name: empty when only entities outside the store differ, so stamping it for
    /// `model` (``StoreRestamp/restamp(_:for:output:outputMode:)``) describes its data truly.
    /// Nil when the configuration is not in `model` or the store has the first hash encoding.
    package func seedEntityDifferences(from model: Model, configuration: String) -> [String]? {
        guard hashEncodingVersion >= Model.hashEncodingVersion, let seed = try? model.restricted(to: configuration) else { return nil }
        let stored = versionHashes
        return seed.entityVersionHashes.filter { stored[$0.key] != $0.value }.keys.sorted()
    }
}
