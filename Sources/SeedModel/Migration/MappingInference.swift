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
        var plan = MigrationPlan(
            changes: inference.changes, sourceEntities: inference.sourceEntities, sourceProperties: inference.sourceProperties)
        plan.warnings = inference.warnings
        return plan
    }

    /// The identity elements are matched by: the renaming identifier, else the name.
    static func canonical(_ name: String, _ renamingIdentifier: String?) -> String {
        renamingIdentifier ?? name
    }

    /// Pairs source and destination elements by canonical identity, then by name. Destinations
    /// with a renaming identifier are matched first: an explicit rename wins over a new element
    /// that merely reuses the old name (which is then new, not the old one kept).
    static func match<T>(_ sources: [T], _ destinations: [T], name: (T) -> String, renaming: (T) -> String?) -> (
        pairs: [(T, T)], removed: [T], added: [T]
    ) {
        var remaining = sources
        var matched: [Int: T] = [:]
        let explicitFirst = destinations.indices.sorted {
            (renaming(destinations[$0]) != nil ? 0 : 1, $0) < (renaming(destinations[$1]) != nil ? 0 : 1, $1)
        }
        for position in explicitFirst {
            let destination = destinations[position]
            let identity = canonical(name(destination), renaming(destination))
            let index =
                remaining.firstIndex { canonical(name($0), renaming($0)) == identity }
                ?? remaining.firstIndex { name($0) == identity }
                ?? (renaming(destination) == nil ? remaining.firstIndex { name($0) == name(destination) } : nil)
            if let index { matched[position] = remaining.remove(at: index) }
        }
        var pairs: [(T, T)] = []
        var added: [T] = []
        for (position, destination) in destinations.enumerated() {
            if let source = matched[position] { pairs.append((source, destination)) } else { added.append(destination) }
        }
        return (pairs, remaining, added)
    }
}
