/// A named subset of a model's entities, stored together in one store.
///
/// The implicit configuration ``Configuration/defaultName`` holds every entity.
/// See [Core Data configurations](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/1506472-entities).
public struct Configuration: Sendable, Hashable {
    /// The name of the implicit configuration that holds every entity.
    public static let defaultName = "Default"

    public var name: String
    /// Member entity names, sorted.
    public var entities: [String]

    public init(name: String, entities: [String]) {
        self.name = name
        self.entities = entities.sorted()
    }
}
