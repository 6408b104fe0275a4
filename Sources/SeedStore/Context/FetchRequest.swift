import SeedModel

/// What to fetch: an entity, a predicate, a sort order, a window, and optionally which stores.
///
/// Mirrors [NSFetchRequest](https://developer.apple.com/documentation/coredata/nsfetchrequest):
/// ```swift
/// let request = FetchRequest(
///     entity: "Postcode", predicate: try FetchPredicate("postcode BEGINSWITH 'CT'"),
///     sortDescriptors: [FetchSortDescriptor("postcode")], fetchLimit: 10)
/// let postcodes = try context.fetch(request)
/// ```
public struct FetchRequest {
    /// The entity to fetch; its sub-entities' objects come too.
    public var entity: String
    /// Which objects; every object of the entity when nil.
    public var predicate: FetchPredicate?
    /// The order of the results, first key first; the stores' order when empty.
    public var sortDescriptors: [FetchSortDescriptor]
    /// The most objects to return; no limit when nil.
    public var fetchLimit: Int?
    /// How many of the sorted results to skip first.
    public var fetchOffset: Int
    /// Only these stores; nil means every store holding the entity.
    public var affectedStores: [any PersistentStore]?

    /// A request for `entity`'s objects matching `predicate`, in the order of `sortDescriptors`.
    public init(
        entity: String,
        predicate: FetchPredicate? = nil,
        sortDescriptors: [FetchSortDescriptor] = [],
        fetchLimit: Int? = nil,
        fetchOffset: Int = 0,
        affectedStores: [any PersistentStore]? = nil
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.affectedStores = affectedStores
    }
}

extension FetchRequest {
    /// A fetch request from a template stored in the model by name, its `$VARIABLE`s substituted,
    /// like Core Data's [fetchRequestFromTemplate(withName:substitutionVariables:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/fetchrequestfromtemplate(withname:substitutionvariables:)).
    ///
    /// ```swift
    /// let request = try FetchRequest(template: "byCounty", in: coordinator.model, substitutionVariables: ["CODE": .value("KEN")])
    /// ```
    /// - Throws: ``FetchPredicateError`` naming the template when it does not exist, its predicate
    ///   does not parse or a variable has no value.
    public init(template name: String, in model: Model, substitutionVariables: [String: PredicateVariable] = [:]) throws {
        guard let template = model.fetchRequestTemplate(named: name) else {
            let known = model.fetchRequestTemplates.map(\.name)
            throw FetchPredicateError(
                format: "", position: nil,
                "the model has no fetch request template named \"\(name)\""
                    + (known.isEmpty ? "" : "; it has \(known.joined(separator: ", "))"))
        }
        let format = template.predicateFormat
        let predicate: FetchPredicate
        do {
            predicate = try FetchPredicate(format).substituting(substitutionVariables, format: format)
        } catch {
            throw FetchPredicateError(format: format, position: error.position, "fetch request template \(name): \(error.message)")
        }
        self.init(entity: template.entity, predicate: predicate)
    }
}
