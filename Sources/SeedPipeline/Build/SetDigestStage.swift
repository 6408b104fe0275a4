import Foundation
import SeedInstall

/// The release's set digest (``SetDigest``), signed in its manifest as `setDigest`: from the base's
/// and the one-hop delta when the build follows a base whose manifest states one — old rows out, new
/// rows in, costing what changed — else read from every row of the new store.
enum SetDigestStage {
    /// The manifest member holding it.
    static let manifestKey = SetDigest.manifestKey

    /// - Parameters:
    ///   - store: the finished store (under its temporary name).
    ///   - base: the release the build followed, if any.
    ///   - deltas: the deltas the build wrote; the one from the base's data version is used.
    static func digest(of store: String, base: BaseRelease?, deltas: PendingDeltas?) throws -> String {
        if let base, let stated = base.manifest?.values[manifestKey]?.stringValue, let baseDigest = SetDigest(stated),
            let version = base.metadata.dataVersion, let oneHop = deltas?.files.first(where: { $0.entry.fromDataVersion == version }),
            let delta = try? DeltaReader.read(oneHop.temporary),
            let updated = try? delta.update(baseDigest, base: StoreConnection(path: base.path, mode: .immutable))
        {
            return updated.description
        }
        return try SetDigest.compute(of: store).description
    }
}
