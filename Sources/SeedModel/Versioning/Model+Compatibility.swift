import Foundation

/// Core Data's rule for whether a store fits a model, and why not.
///
/// A store fits when the entity hashes it was stamped with equal the hashes of **every** entity of
/// the model the app's coordinator uses — the configuration the store is added with does not enter
/// the check. So a seed added under a merged model (seed model ∪ user model) must carry the merged
/// model's hashes, user entities included.
extension Model {
    /// One entity whose stored hash differs from the model's, and what changed.
    public struct HashDifference: Sendable, Hashable, CustomStringConvertible {
        public var entity: String
        /// What changed: "not in the store", "attribute count: type Integer 16 → Integer 32", …
        public var reasons: [String]

        public init(entity: String, reasons: [String]) {
            self.entity = entity
            self.reasons = reasons
        }

        public var description: String { "\(entity) (\(reasons.joined(separator: "; ")))" }
    }

    /// Whether a store stamped with `stored` opens under this model with no migration.
    public func fits(storedHashes stored: [String: Data]) -> Bool {
        stored == entityVersionHashes
    }

    /// Every entity whose hash differs between the store and this model, with the reason; empty when
    /// the store fits. `storedModel`, the model the store was built with, lets the reasons name
    /// the properties that changed.
    public func hashDifferences(stored: [String: Data], storedModel: Model? = nil) -> [HashDifference] {
        let expected = entityVersionHashes
        var differences: [HashDifference] = []
        for name in Set(stored.keys).union(expected.keys).sorted(by: Self.precedes) where stored[name] != expected[name] {
            guard let storedHash = stored[name] else {
                differences.append(HashDifference(entity: name, reasons: ["in the model but not in the store"]))
                continue
            }
            guard expected[name] != nil, let entity = entity(named: name) else {
                differences.append(HashDifference(entity: name, reasons: ["in the store but not in the model"]))
                continue
            }
            var reasons: [String] = []
            if let storedModel, let old = storedModel.entity(named: name), storedModel.versionHash(of: old) == storedHash {
                reasons = Self.changes(from: old, in: storedModel, to: entity, in: self)
            }
            if reasons.isEmpty { reasons = ["its version hash differs"] }
            differences.append(HashDifference(entity: name, reasons: reasons))
        }
        return differences
    }

    /// The hashed differences between two versions of an entity, property by property.
    static func changes(from old: Entity, in oldModel: Model, to new: Entity, in newModel: Model) -> [String] {
        var reasons: [String] = []
        if old.isAbstract != new.isAbstract { reasons.append(new.isAbstract ? "became abstract" : "is no longer abstract") }
        if old.parentEntity != new.parentEntity {
            reasons.append("parent entity \(old.parentEntity ?? "none") → \(new.parentEntity ?? "none")")
        } else if let parent = newModel.superentity(of: new), let oldParent = oldModel.superentity(of: old),
            oldModel.versionHash(of: oldParent) != newModel.versionHash(of: parent)
        {
            reasons.append("parent entity \(parent.name) changed")
        }
        if old.versionHashModifier != new.versionHashModifier {
            reasons.append("versionHashModifier \(old.versionHashModifier ?? "none") → \(new.versionHashModifier ?? "none")")
        }
        if Set(old.uniquenessConstraints) != Set(new.uniquenessConstraints) {
            reasons.append("uniqueness constraints changed")
        }
        let oldProperties = hashedProperties(of: old, in: oldModel)
        let newProperties = hashedProperties(of: new, in: newModel)
        for name in Set(oldProperties.keys).union(newProperties.keys).sorted(by: precedes) {
            switch (oldProperties[name], newProperties[name]) {
            case (nil, let added?): reasons.append("\(added.kind) \(name) added")
            case (let removed?, nil): reasons.append("\(removed.kind) \(name) removed")
            case (let before?, let after?) where before.hash != after.hash:
                reasons.append("\(after.kind) \(name) changed" + (detail(before.summary, after.summary).map { ": \($0)" } ?? ""))
            default: break
            }
        }
        return reasons
    }

    private struct HashedProperty {
        var kind: String
        var hash: Data
        var summary: [String: String]
    }

    private static func hashedProperties(of entity: Entity, in model: Model) -> [String: HashedProperty] {
        var properties: [String: HashedProperty] = [:]
        for attribute in model.allAttributes(of: entity) where !attribute.isTransient {
            properties[attribute.name] = HashedProperty(
                kind: attribute.derivation == nil ? "attribute" : "derived attribute", hash: versionHash(of: attribute),
                summary: [
                    "type": attribute.type.rawValue, "optional": attribute.isOptional ? "optional" : "required",
                    "read-only": String(attribute.isReadOnly), "versionHashModifier": attribute.versionHashModifier ?? "none",
                    "external storage": String(attribute.allowsExternalBinaryDataStorage),
                    "preserved after deletion": String(attribute.preservesValueInHistoryOnDeletion),
                    "derivation": attribute.derivation?.expression ?? "none",
                ])
        }
        for relationship in model.allRelationships(of: entity) where !relationship.isTransient {
            properties[relationship.name] = HashedProperty(
                kind: "relationship", hash: versionHash(of: relationship, in: entity),
                summary: [
                    "destination": relationship.destination, "inverse": relationship.inverse ?? "none",
                    "optional": relationship.isOptional ? "optional" : "required",
                    "read-only": String(relationship.isReadOnly), "minCount": String(relationship.minCount),
                    "maxCount": String(relationship.maxCount), "ordered": String(relationship.isOrdered),
                    "versionHashModifier": relationship.versionHashModifier ?? "none",
                ])
        }
        return properties
    }

    private static func detail(_ before: [String: String], _ after: [String: String]) -> String? {
        let changed = before.keys.sorted().compactMap { key -> String? in
            guard let old = before[key], let new = after[key], old != new else { return nil }
            return key == "type" || key == "optional" ? "\(old) → \(new)" : "\(key) \(old) → \(new)"
        }
        return changed.isEmpty ? nil : changed.joined(separator: ", ")
    }
}
