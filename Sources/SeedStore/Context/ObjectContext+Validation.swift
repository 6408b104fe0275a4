import Foundation
import SeedModel

extension ObjectContext {
    /// Checks every object to be saved against the model and reports every problem at once:
    /// unknown names, required values and relationships, value types, ranges, uniqueness constraints,
    /// and the Deny rule of the transient relationships of the objects to be deleted.
    func validate(_ objects: [ManagedObject], deleted: [ManagedObject], storeOf: (ManagedObject) -> (any PersistentStore)?) throws {
        var problems = transientDenials(deleted)
        var seen: [String: ManagedObject] = [:]
        for object in objects {
            let entity = object.entity
            for key in object.unknownKeys.sorted() {
                problems.append(
                    "\(object.objectID): \(entity.name) has no attribute \"\(key)\"; it has \(entity.attributes.map(\.name).joined(separator: ", "))"
                )
            }
            for attribute in entity.attributes where !attribute.isTransient {
                if let problem = Self.check(object[attribute.name], attribute) {
                    problems.append("\(object.objectID): \(entity.name).\(attribute.name) \(problem)")
                }
            }
            for relationship in entity.relationships where !relationship.isToMany && !relationship.isOptional && !relationship.isTransient {
                let isSet: Bool
                if let change = object.toOneChanges[relationship.name] {
                    isSet = change != nil
                } else {
                    isSet = !object.isInserted && (try? object.object(forRelationship: relationship.name)) != nil
                }
                if !isSet {
                    problems.append(
                        "\(object.objectID): \(entity.name).\(relationship.name) is a required relationship to \(relationship.destination); set it"
                    )
                }
            }
            for constraint in entity.uniquenessConstraints {
                let values = constraint.map { object[$0] }
                guard !values.contains(.null) else { continue }
                let described = zip(constraint, values).map { "\($0) = \($1.displayText)" }.joined(separator: ", ")
                let signature = ([entity.name] + zip(constraint, values).map { "\($0)\u{0}\($1)" }).joined(separator: "\u{1}")
                if let other = seen[signature], other !== object {
                    problems.append(
                        "\(object.objectID): \(entity.name) must be unique on \(constraint.joined(separator: ", ")), and \(other.objectID) being saved too has \(described)"
                    )
                    continue
                }
                seen[signature] = object
                guard let store = storeOf(object) else { continue }
                let predicate = FetchPredicate.and(zip(constraint, values).map { .comparison(.keyPath([$0]), .equal, .value($1), []) })
                let clashes = try store.fetch(StoreFetch(entity: entity.name, predicate: predicate, fetchLimit: 2))
                    .filter { object.isInserted || $0.key != object.objectID.key }
                    .filter { row in
                        !(registered[ObjectID(entity: entity.name, storeIdentifier: store.identifier, key: row.key)]?.isDeleted ?? false)
                    }
                if let clash = clashes.first {
                    problems.append(
                        "\(object.objectID): \(entity.name) must be unique on \(constraint.joined(separator: ", ")), and \(entity.name) \(clash.key.displayText) in \(store.storeDescription.displayName) already has \(described)"
                    )
                }
            }
        }
        if !problems.isEmpty {
            throw ContextError(
                .validation,
                "cannot save: \(problems.count) value\(problems.count == 1 ? " breaks" : "s break") the model's rules; nothing was written",
                problems: problems)
        }
    }

    /// What is wrong with a value for an attribute, or nil when it fits.
    static func check(_ value: StoreValue, _ attribute: Attribute) -> String? {
        let type = attribute.type
        if value.isNull {
            return attribute.isOptional ? nil : "is required (non-optional \(type.rawValue)); set a value"
        }
        let fits: Bool
        switch type {
        case .integer16, .integer32, .integer64:
            guard case .integer(let number) = value else { return "must be a whole number (\(type.rawValue)), not \(value.displayText)" }
            if let range = type.integerRange, !range.contains(number) {
                return "\(number) does not fit \(type.rawValue) (\(range.lowerBound)…\(range.upperBound))"
            }
            fits = true
        case .boolean:
            fits = value == .integer(0) || value == .integer(1)
        case .double, .float, .date:
            fits = value.doubleValue != nil
        case .decimal:
            fits = value.stringValue.map { Decimal(string: $0) != nil } ?? (value.doubleValue != nil)
        case .string, .uri:
            fits = value.stringValue != nil
        case .uuid:
            fits = value.stringValue.flatMap(UUID.init(uuidString:)) != nil
        case .binary, .transformable:
            fits = value.dataValue != nil
        case .undefined, .objectID, .composite:
            return "cannot be stored (\(type.rawValue)); mark the attribute transient"
        }
        guard fits else { return "must be a \(type.rawValue) value, not \(value.displayText)" }
        if let number = value.doubleValue, type != .date {
            if let text = attribute.minValue, let minimum = Double(text), number < minimum {
                return "is \(value.displayText), below its minimum \(text)"
            }
            if let text = attribute.maxValue, let maximum = Double(text), number > maximum {
                return "is \(value.displayText), above its maximum \(text)"
            }
        }
        if let text = value.stringValue, type == .string {
            if let limit = attribute.minValue.flatMap(Int.init), text.count < limit {
                return "is \(text.count) characters, shorter than its minimum length \(limit)"
            }
            if let limit = attribute.maxValue.flatMap(Int.init), text.count > limit {
                return "is \(text.count) characters, longer than its maximum length \(limit)"
            }
        }
        return nil
    }
}
