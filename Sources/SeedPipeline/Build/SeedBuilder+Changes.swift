import Foundation
import SeedStore

extension SeedBuilder {
    /// For a build that follows a base: its deltas and each entity's changes against the base, read
    /// from the finished store under its temporary name (`store`) in one diff; then the change
    /// budget. Nothing when the build follows no base.
    /// - Throws: ``ChangeBudgetExceeded`` when an entity is past `request.changeBudget` and the
    ///   change is not accepted (`request.acceptChange`); ``IngestError`` when the changes cannot be
    ///   counted at all.
    func followBase(
        _ request: BuildRequest, store: String, schema: StoreSchema, timings: inout PhaseTimings
    ) throws -> (PendingDeltas?, ChangeReport?) {
        guard let base = request.baseRelease else { return (nil, nil) }
        let (deltas, counted) = timings.measure("deltas") {
            DeltaStage(policy: request.deltas).run(base: base, store: store, dataset: request.dataset, schema: schema)
        }
        var changes = counted
        if changes == nil {
            // No delta was written (none asked for, or its diff failed): the rows are compared alone.
            do {
                changes = try timings.measure("changes") {
                    try StoreComparison().compare(base: base.path, new: store, schema: schema, from: base.location, to: request.storePath)
                }
            } catch  where request.acceptChange {
                changes = nil
            } catch {
                throw IngestError(
                    .badData, file: base.location,
                    "this build's rows cannot be compared with the base's, so its changes cannot be checked against the change budget: \(error)"
                )
            }
        }
        changes?.to = request.storePath
        if let changes, !request.acceptChange {
            let breaches = request.changeBudget.breaches(changes)
            if !breaches.isEmpty { throw ChangeBudgetExceeded(report: changes, breaches: breaches, base: base.location) }
        }
        return (deltas, changes)
    }
}
