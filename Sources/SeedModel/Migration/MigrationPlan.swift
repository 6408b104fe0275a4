/// The changes a lightweight migration makes to go from a source model to a destination model.
///
/// Produced by ``MappingInference``; applied to a SQLite store by `SeedStore`'s `Migrator`.
/// An empty plan means the store's hashes already match: nothing to do.
public struct MigrationPlan: Sendable, Equatable, CustomStringConvertible {
    public struct Change: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable, Equatable {
            case addEntity, removeEntity, renameEntity
            case addAttribute, removeAttribute, renameAttribute
            /// Non-optional → optional.
            case makeOptional
            /// Optional → non-optional, filling NULLs with the default.
            case makeRequired
            case addRelationship, removeRelationship, renameRelationship
            /// To-one ↔ to-many or ordered ↔ unordered.
            case changeCardinality
            /// Delete rule or min/max count only: nothing stored changes.
            case changeRelationshipRules
            case addUniquenessConstraint, removeUniquenessConstraint
            /// Integer 16 → 32 → 64: values kept.
            case widenType
            /// A new parent entity, or none: the rows move into (or out of) the tree's table.
            case changeParent
            /// The version hash changed (a `versionHashModifier`) but nothing stored did.
            case changeVersionHashOnly
        }

        public var kind: Kind
        /// The entity's name in the destination model (the source name for a removal).
        public var entity: String
        public var property: String?
        /// The name in the source model, when it differs (renames).
        public var oldName: String?
        /// How it is applied, for people reading the plan.
        public var detail: String

        public init(_ kind: Kind, entity: String, property: String? = nil, oldName: String? = nil, detail: String) {
            self.kind = kind
            self.entity = entity
            self.property = property
            self.oldName = oldName
            self.detail = detail
        }

        public var description: String {
            let target = property.map { "\(entity).\($0)" } ?? entity
            return "\(kind.rawValue) \(target): \(detail)"
        }
    }

    public var changes: [Change]
    /// Destination entity → its source entity, for every entity that existed before.
    public var sourceEntities: [String: String]
    /// Destination entity → destination property → source property, for stored properties that existed before.
    public var sourceProperties: [String: [String: String]]
    /// What the plan does that a person should know of: an entity removed beside an unrelated new
    /// one, which would have needed a renaming identifier to be a rename.
    public var warnings: [String] = []

    public init(changes: [Change] = [], sourceEntities: [String: String] = [:], sourceProperties: [String: [String: String]] = [:]) {
        self.changes = changes
        self.sourceEntities = sourceEntities
        self.sourceProperties = sourceProperties
    }

    /// True when the source and destination store the same shape.
    public var isEmpty: Bool { changes.isEmpty }

    public var description: String {
        let lines = changes.map { "- \($0)" } + warnings.map { "- warning: \($0)" }
        return changes.isEmpty && warnings.isEmpty ? "no changes: the store is compatible" : lines.joined(separator: "\n")
    }
}

/// Why a lightweight migration cannot be inferred: every problem, each naming entity and property.
public struct MigrationRefusal: Error, Sendable, CustomStringConvertible {
    public let reasons: [ModelDiagnostic]

    public init(reasons: [ModelDiagnostic]) {
        self.reasons = reasons
    }

    /// Each reason as `Entity.property: message`.
    public var messages: [String] {
        reasons.map { reason in
            let target = reason.entity.map { entity in reason.property.map { "\(entity).\($0)" } ?? entity } ?? "model"
            return "\(target): \(reason.message)"
        }
    }

    public var description: String {
        "lightweight migration refused:\n" + messages.map { "- \($0)" }.joined(separator: "\n")
    }
}
