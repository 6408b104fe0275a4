import Foundation

/// The canonical JSON form of a model (documented in `docs/model-json.md`).
///
/// Keys are sorted, entities, properties and configurations are in name order, and a
/// value equal to its default is left out, so the same model always gives the same bytes:
/// the form is embedded in seed stores and diffed by the verifier.
extension Model {
    /// The canonical JSON bytes of the whole model.
    public func canonicalJSON() -> Data {
        Self.serialize(jsonObject())
    }

    /// The canonical JSON bytes of the model restricted to one configuration's entities
    /// (the form a seed store embeds).
    public func canonicalJSON(configuration name: String) throws(ModelError) -> Data {
        Self.serialize(try restricted(to: name).jsonObject())
    }

    /// The model holding only one configuration's entities, and that configuration.
    public func restricted(to configurationName: String) throws(ModelError) -> Model {
        guard let configuration = configuration(named: configurationName) else {
            throw .invalid(
                "no configuration named \"\(configurationName)\"; the model has \(configurationNames.joined(separator: ", "))",
                source: source)
        }
        var model = self
        model.entities = entities(in: configuration)
        model.fetchRequestTemplates = fetchRequestTemplates.filter { configuration.entities.contains($0.entity) }
        model.configurations = configuration.name == Configuration.defaultName ? [] : [configuration]
        return model
    }

    static func serialize(_ object: [String: Any]) -> Data {
        // Serializing plain dictionaries, arrays, strings, numbers and booleans cannot fail.
        var data = try! JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        data.append(0x0A)
        return data
    }

    func jsonObject() -> [String: Any] {
        var object: [String: Any] = ["name": name, "entities": entities.map { $0.jsonObject() }]
        if !versionIdentifiers.isEmpty { object["versionIdentifiers"] = versionIdentifiers }
        if !configurations.isEmpty {
            object["configurations"] = configurations.map { ["name": $0.name, "entities": $0.entities] }
        }
        if !fetchRequestTemplates.isEmpty {
            object["fetchRequests"] = fetchRequestTemplates.map { template in
                var object: [String: Any] = ["name": template.name, "entity": template.entity]
                if !template.predicate.isEmpty { object["predicate"] = template.predicate }
                return object
            }
        }
        if !composites.isEmpty {
            object["composites"] = composites.map { ["name": $0.name, "elements": $0.elements.map { $0.jsonObject() }] as [String: Any] }
        }
        return object
    }
}

extension Entity {
    func jsonObject() -> [String: Any] {
        var object: [String: Any] = ["name": name]
        object.setIfPresent("representedClassName", representedClassName)
        object.setIfPresent("parentEntity", parentEntity)
        if isAbstract { object["abstract"] = true }
        if !attributes.isEmpty { object["attributes"] = attributes.map { $0.jsonObject() } }
        if !relationships.isEmpty { object["relationships"] = relationships.map { $0.jsonObject() } }
        if !fetchedProperties.isEmpty { object["fetchedProperties"] = fetchedProperties.map { $0.jsonObject() } }
        if !uniquenessConstraints.isEmpty { object["uniquenessConstraints"] = uniquenessConstraints }
        if !indexes.isEmpty {
            object["indexes"] = indexes.map { index in
                [
                    "name": index.name,
                    "elements": index.elements.map { ["property": $0.property, "ascending": $0.isAscending] },
                ] as [String: Any]
            }
        }
        object.setIfPresent("renamingIdentifier", renamingIdentifier)
        object.setIfPresent("versionHashModifier", versionHashModifier)
        if !userInfo.isEmpty { object["userInfo"] = userInfo }
        return object
    }
}

extension Attribute {
    func jsonObject() -> [String: Any] {
        var object: [String: Any] = ["name": name, "type": type.rawValue]
        if !isOptional { object["optional"] = false }
        if isTransient { object["transient"] = true }
        if isReadOnly { object["readOnly"] = true }
        if isIndexed { object["indexed"] = true }
        object.setIfPresent("default", defaultValue)
        object.setIfPresent("min", minValue)
        object.setIfPresent("max", maxValue)
        object.setIfPresent("renamingIdentifier", renamingIdentifier)
        object.setIfPresent("versionHashModifier", versionHashModifier)
        object.setIfPresent("valueTransformerName", valueTransformerName)
        if allowsExternalBinaryDataStorage { object["externalBinaryStorage"] = true }
        if preservesValueInHistoryOnDeletion { object["preserveAfterDeletion"] = true }
        object.setIfPresent("derivation", derivation?.expression)
        object.setIfPresent("derivationFilter", derivation?.filterPredicate)
        object.setIfPresent("composite", compositeName)
        if !userInfo.isEmpty { object["userInfo"] = userInfo }
        return object
    }
}

extension Relationship {
    func jsonObject() -> [String: Any] {
        var object: [String: Any] = ["name": name, "destination": destination, "deleteRule": deleteRule.rawValue]
        object.setIfPresent("inverse", inverse)
        if isToMany { object["toMany"] = true }
        if isOrdered { object["ordered"] = true }
        if minCount != 0 { object["minCount"] = minCount }
        if maxCount != (isToMany ? 0 : 1) { object["maxCount"] = maxCount }
        if !isOptional { object["optional"] = false }
        if isTransient { object["transient"] = true }
        if isReadOnly { object["readOnly"] = true }
        object.setIfPresent("renamingIdentifier", renamingIdentifier)
        object.setIfPresent("versionHashModifier", versionHashModifier)
        if !userInfo.isEmpty { object["userInfo"] = userInfo }
        return object
    }
}

extension FetchedProperty {
    func jsonObject() -> [String: Any] {
        var object: [String: Any] = ["name": name, "entity": entity]
        if !predicate.isEmpty { object["predicate"] = predicate }
        if !isOptional { object["optional"] = false }
        if !userInfo.isEmpty { object["userInfo"] = userInfo }
        return object
    }
}

extension Dictionary where Key == String, Value == Any {
    fileprivate mutating func setIfPresent(_ key: String, _ value: String?) {
        if let value { self[key] = value }
    }
}
