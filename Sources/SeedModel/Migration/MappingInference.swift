/// Infers a lightweight migration between two versions of a model, following the rule table of
/// `DESIGN.md` §4 (Core Data's inferred mapping model, made strict).
///
/// Elements are matched by their canonical identity — the renaming identifier when there is one
/// (the element's canonical old name), else the name — so v1 → v3 works across two renames. A name
/// that vanishes while a plausible replacement appears without a renaming identifier is refused,
/// never turned into a silent drop and add.
///
/// ```swift
/// let plan = try MappingInference.infer(from: storeModel, to: appModel, configuration: "PostCodesConf")
/// ```
public enum MappingInference {
    /// - Parameters:
    ///   - source: the model the store was built with, restricted to its configuration (the store's `seed_model`).
    ///   - destination: the model to migrate to, whole (so entities that moved configuration are recognised).
    ///   - configuration: the store's configuration in `destination`.
    /// - Throws: ``MigrationRefusal`` listing every change that cannot be inferred.
    public static func infer(from source: Model, to destination: Model, configuration: String) throws(MigrationRefusal) -> MigrationPlan {
        var inference = Inference(source: source, destination: destination)
        inference.run(configuration: configuration)
        if !inference.refusals.isEmpty { throw MigrationRefusal(reasons: inference.refusals) }
        return MigrationPlan(
            changes: inference.changes, sourceEntities: inference.sourceEntities, sourceProperties: inference.sourceProperties)
    }

    /// The identity elements are matched by: the renaming identifier, else the name.
    static func canonical(_ name: String, _ renamingIdentifier: String?) -> String {
        renamingIdentifier ?? name
    }

    /// Pairs source and destination elements by canonical identity, then by name.
    static func match<T>(_ sources: [T], _ destinations: [T], name: (T) -> String, renaming: (T) -> String?) -> (pairs: [(T, T)], removed: [T], added: [T]) {
        var remaining = sources
        var pairs: [(T, T)] = []
        var added: [T] = []
        for destination in destinations {
            let identity = canonical(name(destination), renaming(destination))
            let index = remaining.firstIndex { canonical(name($0), renaming($0)) == identity }
                ?? remaining.firstIndex { name($0) == name(destination) }
            if let index {
                pairs.append((remaining.remove(at: index), destination))
            } else {
                added.append(destination)
            }
        }
        return (pairs, remaining, added)
    }
}
