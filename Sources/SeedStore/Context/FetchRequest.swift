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
    public var entity: String
    public var predicate: FetchPredicate?
    public var sortDescriptors: [FetchSortDescriptor]
    public var fetchLimit: Int?
    public var fetchOffset: Int
    /// Only these stores; nil means every store holding the entity.
    public var affectedStores: [any PersistentStore]?

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
