import SeedModel

/// An entity as the coordinator resolved it (inherited properties listed as its own), held by
/// reference so that every object of it shares one.
final class SharedEntity: Sendable {
    let entity: Entity

    init(_ entity: Entity) { self.entity = entity }
}
