import SeedModel

/// An entity as the coordinator resolved it (inherited properties listed as its own), held by
/// reference so that every object of it shares one.
///
/// The names and types of its attributes are kept apart as well: reading `entity` through an
/// object copies the whole struct (a dozen fields retained and released), which the checks made
/// on every value read must not pay.
final class SharedEntity: Sendable {
    let entity: Entity
    let name: String
    let attributeTypes: [String: AttributeType]
    /// The names of the persistent attributes, for an object's current values (``ManagedObject/values``).
    let attributeLayout: RowLayout

    init(_ entity: Entity) {
        self.entity = entity
        name = entity.name
        attributeTypes = Dictionary(entity.attributes.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        attributeLayout = RowLayout(names: entity.attributes.filter { !$0.isTransient }.map(\.name))
    }
}
