/// A store the coordinator cannot add, route to, migrate or save, naming the store, the
/// configuration, the entities and what to do.
public struct CoordinatorError: Error, Sendable, CustomStringConvertible {
    /// What the coordinator refused.
    public enum Kind: Sendable, Equatable {
        /// The configuration is not in the model.
        case unknownConfiguration
        /// Two stores would hold the same entities.
        case overlappingConfiguration
        /// The store's version hashes differ from the model's and migration was not asked for.
        case incompatibleStore
        /// No store holds the entity (or none of the affected stores).
        case noStore
        /// A relationship links objects in two stores.
        case crossStoreRelationship
        /// The operation is not possible for this store or type.
        case unsupported
    }

    /// What the coordinator refused.
    public let kind: Kind
    /// What is wrong, naming the store, the configuration and the entities, and what to do.
    public let message: String
    /// For ``Kind/incompatibleStore``: the entities whose stored hashes differ, are missing or are extra.
    public let differingEntities: [String]

    /// An error of `kind`; `differingEntities` for an incompatible store.
    public init(_ kind: Kind, _ message: String, differingEntities: [String] = []) {
        self.kind = kind
        self.message = message
        self.differingEntities = differingEntities
    }

    /// The message.
    public var description: String { message }
}
