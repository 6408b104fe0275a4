import Foundation

/// Reads the JSON form of a model, naming the file, entity and property of every problem.
///
/// Unknown keys are errors, so a misspelt `"optinal": true` is caught rather than ignored.
struct JSONModelReader {
    let source: ModelSource

    func read(_ data: Data) throws(ModelError) -> Model {
        do {
            return try readModel(data)
        } catch let error as ModelError {
            throw error
        } catch {
            throw ModelError.invalid("cannot read the JSON model: \(error)", source: source)
        }
    }

    private func readModel(_ data: Data) throws -> Model {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ModelError.invalid("not valid JSON (\(error.localizedDescription)); check the file's syntax", source: source)
        }
        let object = try Object(root, at: Location(source: source), what: "the model")
        try object.allowKeys(["name", "versionIdentifiers", "entities", "configurations", "fetchRequests", "composites"])
        let fallbackName = URL(fileURLWithPath: source.file).deletingPathExtension().lastPathComponent
        let entities = try object.objects("entities").map(readEntity)
        let configurations = try object.objects("configurations", required: false).map { config in
            try config.allowKeys(["name", "entities"])
            return Configuration(name: try config.string("name"), entities: try config.strings("entities"))
        }
        let templates = try object.objects("fetchRequests", required: false).map { template in
            try template.allowKeys(["name", "entity", "predicate"])
            return FetchRequestTemplate(
                name: try template.string("name"), entity: try template.string("entity"),
                predicate: try template.optionalString("predicate") ?? "")
        }
        let composites = try object.objects("composites", required: false).map { composite in
            try composite.allowKeys(["name", "elements"])
            return Composite(name: try composite.string("name"), elements: try composite.objects("elements").map(readAttribute))
        }
        return Model(
            name: try object.optionalString("name") ?? fallbackName,
            versionIdentifiers: try object.strings("versionIdentifiers", required: false),
            entities: entities,
            configurations: configurations,
            fetchRequestTemplates: templates,
            composites: composites,
            source: source)
    }

    private func readEntity(_ object: Object) throws -> Entity {
        let name = try object.string("name")
        let object = object.within(entity: name)
        try object.allowKeys([
            "name", "representedClassName", "parentEntity", "abstract", "attributes", "relationships",
            "fetchedProperties", "uniquenessConstraints", "indexes", "renamingIdentifier", "versionHashModifier",
            "userInfo",
        ])
        var constraints: [[String]] = []
        for value in try object.array("uniquenessConstraints", required: false) {
            guard let names = value as? [String] else {
                throw object.error("uniquenessConstraints must be a list of lists of attribute names")
            }
            constraints.append(names)
        }
        return Entity(
            name: name,
            representedClassName: try object.optionalString("representedClassName"),
            parentEntity: try object.optionalString("parentEntity"),
            isAbstract: try object.bool("abstract", default: false),
            attributes: try object.objects("attributes", required: false).map(readAttribute),
            relationships: try object.objects("relationships", required: false).map(readRelationship),
            fetchedProperties: try object.objects("fetchedProperties", required: false).map(readFetchedProperty),
            uniquenessConstraints: constraints,
            indexes: try object.objects("indexes", required: false).map(readIndex),
            renamingIdentifier: try object.optionalString("renamingIdentifier"),
            versionHashModifier: try object.optionalString("versionHashModifier"),
            userInfo: try object.stringMap("userInfo"),
            origin: source)
    }

    private func readAttribute(_ object: Object) throws -> Attribute {
        let object = object.within(property: try object.string("name"))
        try object.allowKeys([
            "name", "type", "optional", "transient", "readOnly", "indexed", "default", "min", "max",
            "renamingIdentifier", "versionHashModifier", "valueTransformerName", "externalBinaryStorage", "userInfo",
            "preserveAfterDeletion", "derivation", "derivationFilter", "composite",
        ])
        let typeName = try object.string("type")
        guard let type = AttributeType(rawValue: typeName) else {
            throw object.error(
                "unknown attribute type \"\(typeName)\"; use one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return Attribute(
            name: try object.string("name"), type: type,
            isOptional: try object.bool("optional", default: true),
            isTransient: try object.bool("transient", default: false),
            isReadOnly: try object.bool("readOnly", default: false),
            defaultValue: try object.optionalString("default"),
            minValue: try object.optionalString("min"), maxValue: try object.optionalString("max"),
            isIndexed: try object.bool("indexed", default: false),
            renamingIdentifier: try object.optionalString("renamingIdentifier"),
            versionHashModifier: try object.optionalString("versionHashModifier"),
            valueTransformerName: try object.optionalString("valueTransformerName"),
            allowsExternalBinaryDataStorage: try object.bool("externalBinaryStorage", default: false),
            preservesValueInHistoryOnDeletion: try object.bool("preserveAfterDeletion", default: false),
            derivation: try object.optionalString("derivation").map {
                Attribute.Derivation(expression: $0, filterPredicate: try object.optionalString("derivationFilter"))
            },
            compositeName: try object.optionalString("composite"),
            userInfo: try object.stringMap("userInfo"))
    }

    private func readRelationship(_ object: Object) throws -> Relationship {
        let object = object.within(property: try object.string("name"))
        try object.allowKeys([
            "name", "destination", "inverse", "toMany", "ordered", "minCount", "maxCount", "deleteRule",
            "optional", "transient", "readOnly", "renamingIdentifier", "versionHashModifier", "userInfo",
        ])
        let ruleName = try object.optionalString("deleteRule") ?? DeleteRule.nullify.rawValue
        guard let rule = DeleteRule(rawValue: ruleName) else {
            throw object.error(
                "unknown delete rule \"\(ruleName)\"; use one of \(DeleteRule.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return Relationship(
            name: try object.string("name"), destination: try object.string("destination"),
            inverse: try object.optionalString("inverse"),
            isToMany: try object.bool("toMany", default: false), isOrdered: try object.bool("ordered", default: false),
            minCount: try object.int("minCount") ?? 0, maxCount: try object.int("maxCount"),
            deleteRule: rule, isOptional: try object.bool("optional", default: true),
            isTransient: try object.bool("transient", default: false),
            isReadOnly: try object.bool("readOnly", default: false),
            renamingIdentifier: try object.optionalString("renamingIdentifier"),
            versionHashModifier: try object.optionalString("versionHashModifier"),
            userInfo: try object.stringMap("userInfo"))
    }

    private func readFetchedProperty(_ object: Object) throws -> FetchedProperty {
        let object = object.within(property: try object.string("name"))
        try object.allowKeys(["name", "entity", "predicate", "optional", "userInfo"])
        return FetchedProperty(
            name: try object.string("name"), entity: try object.string("entity"),
            predicate: try object.optionalString("predicate") ?? "", isOptional: try object.bool("optional", default: true),
            userInfo: try object.stringMap("userInfo"))
    }

    private func readIndex(_ object: Object) throws -> FetchIndex {
        try object.allowKeys(["name", "elements"])
        let elements = try object.objects("elements").map { element in
            try element.allowKeys(["property", "ascending"])
            return FetchIndex.Element(
                property: try element.string("property"), isAscending: try element.bool("ascending", default: true))
        }
        return FetchIndex(name: try object.string("name"), elements: elements)
    }
}
