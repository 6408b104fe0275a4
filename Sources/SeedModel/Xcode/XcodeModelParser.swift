import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Parses one Xcode model version's `contents` XML into a ``Model``.
///
/// Reads what Xcode's data model editor writes (`<model>`, `<entity>`, `<attribute>`,
/// `<relationship>`, `<fetchedProperty>`, `<uniquenessConstraints>`, `<fetchIndex>`,
/// `<userInfo>`, `<configuration>`, model-level `<fetchRequest>` templates, `<composite>`);
/// layout (`<elements>`) and attributes it does not know are ignored, so files from newer Xcodes
/// still load.
/// Problems are collected, so one run reports all of them.
final class XcodeModelParser: NSObject, XMLParserDelegate {
    private let source: ModelSource
    private var diagnostics: [ModelDiagnostic] = []
    private var sawModelElement = false
    /// Open elements; some XMLParser builds accept a document that ends with elements still open.
    private var depth = 0
    private var versionIdentifiers: [String] = []
    private var entities: [Entity] = []
    private var configurations: [Configuration] = []
    private var templates: [FetchRequestTemplate] = []
    private var composites: [Composite] = []
    private var composite: Composite?

    private var entity: Entity?
    private var attribute: Attribute?
    private var relationship: Relationship?
    private var fetchedProperty: FetchedProperty?
    private var constraint: [String]?
    private var index: FetchIndex?
    private var configuration: Configuration?
    private var userInfo: [String: String]?

    init(source: ModelSource) {
        self.source = source
    }

    func parse(_ data: Data, name: String) throws(ModelError) -> Model {
        let parser = XMLParser(data: data)
        parser.delegate = self
        if !parser.parse() || depth != 0 {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "elements left open"
            diagnostics.append(
                ModelDiagnostic(
                    .error,
                    "the contents file is not well-formed XML at line \(parser.lineNumber) (\(reason)); "
                        + "restore it from version control or re-save it in Xcode", source: source))
        } else if !sawModelElement {
            diagnostics.append(
                ModelDiagnostic(
                    .error, "the contents file has no <model> element; it is not an Xcode data model", source: source))
        }
        if diagnostics.contains(where: { $0.severity == .error }) { throw .invalid(diagnostics) }
        return Model(
            name: name, versionIdentifiers: versionIdentifiers, entities: entities,
            configurations: configurations, fetchRequestTemplates: templates, composites: composites, source: source)
    }

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        depth += 1
        let xml = XMLAttributes(values: attributes)
        switch element {
        case "model":
            sawModelElement = true
            if let identifier = xml["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
                versionIdentifiers = [identifier]
            }
        case "entity":
            entity = Entity(
                name: xml["name"] ?? "", representedClassName: xml["representedClassName"],
                parentEntity: xml["parentEntity"], isAbstract: xml.flag("isAbstract"),
                renamingIdentifier: xml.renamingIdentifier, versionHashModifier: xml["versionHashModifier"],
                origin: source)
        case "attribute" where entity != nil || composite != nil:
            attribute = makeAttribute(xml, line: parser.lineNumber)
        case "composite" where entity == nil:
            composite = Composite(name: xml["name"] ?? "", elements: [])
        case "relationship" where entity != nil:
            relationship = makeRelationship(xml)
        case "fetchedProperty" where entity != nil:
            fetchedProperty = FetchedProperty(
                name: xml["name"] ?? "", entity: "", predicate: "", isOptional: xml.flag("optional"))
        case "fetchRequest" where fetchedProperty != nil:
            fetchedProperty?.entity = xml["entity"] ?? ""
            fetchedProperty?.predicate = xml["predicateString"] ?? ""
        case "fetchRequest" where entity == nil:
            templates.append(
                FetchRequestTemplate(
                    name: xml["name"] ?? "", entity: xml["entity"] ?? "", predicate: xml["predicateString"] ?? ""))
        case "uniquenessConstraint" where entity != nil:
            constraint = []
        case "constraint" where constraint != nil:
            if let value = xml["value"] { constraint?.append(value) }
        case "compoundIndex" where entity != nil:
            // Older Xcodes' compound indexes: the same as a fetch index over those properties.
            index = FetchIndex(name: "", elements: [])
        case "index" where index != nil:
            if let value = xml["value"] { index?.elements.append(FetchIndex.Element(property: value)) }
        case "fetchIndex" where entity != nil:
            index = FetchIndex(name: xml["name"] ?? "", elements: [])
        case "fetchIndexElement" where index != nil:
            index?.elements.append(
                FetchIndex.Element(
                    property: xml["property"] ?? "", isAscending: xml["order"] != "descending"))
        case "configuration":
            configuration = Configuration(name: xml["name"] ?? "", entities: [])
        case "memberEntity" where configuration != nil:
            if let name = xml["name"] { configuration?.entities.append(name) }
        case "userInfo":
            userInfo = [:]
        case "entry" where userInfo != nil:
            if let key = xml["key"] { userInfo?[key] = xml["value"] ?? "" }
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        switch element {
        case "entity":
            if let entity { entities.append(entity) }
            entity = nil
        case "attribute":
            if let attribute {
                if composite != nil { composite?.elements.append(attribute) } else { entity?.attributes.append(attribute) }
            }
            attribute = nil
        case "composite":
            if let composite { composites.append(composite) }
            composite = nil
        case "relationship":
            if let relationship { entity?.relationships.append(relationship) }
            relationship = nil
        case "fetchedProperty":
            if let fetchedProperty { entity?.fetchedProperties.append(fetchedProperty) }
            fetchedProperty = nil
        case "uniquenessConstraint":
            if let constraint, !constraint.isEmpty { entity?.uniquenessConstraints.append(constraint) }
            constraint = nil
        case "fetchIndex":
            if let index { entity?.indexes.append(index) }
            index = nil
        case "compoundIndex":
            if let index, !index.elements.isEmpty {
                entity?.indexes.append(.compound(index.elements.map(\.property)))
            }
            index = nil
        case "configuration":
            if let configuration { configurations.append(Configuration(name: configuration.name, entities: configuration.entities)) }
            configuration = nil
        case "userInfo":
            attachUserInfo(userInfo ?? [:])
            userInfo = nil
        default:
            break
        }
    }

    /// `<userInfo>` belongs to the innermost open element that can carry one.
    private func attachUserInfo(_ info: [String: String]) {
        if attribute != nil {
            attribute?.userInfo = info
        } else if relationship != nil {
            relationship?.userInfo = info
        } else if fetchedProperty != nil {
            fetchedProperty?.userInfo = info
        } else if entity != nil {
            entity?.userInfo = info
        }
    }

    private func makeAttribute(_ xml: XMLAttributes, line: Int) -> Attribute? {
        let name = xml["name"] ?? ""
        // Xcode leaves out attributeType for "Undefined", which transient attributes may have.
        let typeName = xml["attributeType"] ?? AttributeType.undefined.rawValue
        guard let type = AttributeType(rawValue: typeName) else {
            let known = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
            diagnostics.append(
                ModelDiagnostic(
                    .error, "unknown attribute type \"\(typeName)\" (line \(line)); Core Data's types are \(known)",
                    source: source, entity: entity?.name, property: name))
            return nil
        }
        // Dates: Xcode writes seconds since 2001 as `…DateTimeInterval`; Xcode 4 also wrote a readable
        // `…ValueString`, which is not a number, so the interval wins.
        let isDate = type == .date
        let derivation = xml.flag("derived") ? xml["derivationExpression"].map { Attribute.Derivation(expression: $0) } : nil
        let rawDefault = isDate ? xml["defaultDateTimeInterval"] ?? xml["defaultValueString"] : xml["defaultValueString"]
        return Attribute(
            name: name, type: type, isOptional: xml.flag("optional"), isTransient: xml.flag("transient"),
            defaultValue: rawDefault.map { DefaultValueCheck.reading($0, for: type) ?? $0 },
            minValue: isDate ? xml["minDateTimeInterval"] ?? xml["minValueString"] : xml["minValueString"],
            maxValue: isDate ? xml["maxDateTimeInterval"] ?? xml["maxValueString"] : xml["maxValueString"],
            isIndexed: xml.flag("indexed"), renamingIdentifier: xml.renamingIdentifier,
            versionHashModifier: xml["versionHashModifier"], valueTransformerName: xml["valueTransformerName"],
            allowsExternalBinaryDataStorage: xml.flag("allowsExternalBinaryDataStorage"),
            preservesValueInHistoryOnDeletion: xml.flag("preserveAfterDeletion"), derivation: derivation,
            compositeName: xml["composite"])
    }

    private func makeRelationship(_ xml: XMLAttributes) -> Relationship {
        let name = xml["name"] ?? ""
        let ruleName = xml["deletionRule"] ?? DeleteRule.nullify.rawValue
        let rule = DeleteRule(rawValue: ruleName)
        if rule == nil {
            diagnostics.append(
                ModelDiagnostic(
                    .error,
                    "unknown deletionRule \"\(ruleName)\"; use one of "
                        + DeleteRule.allCases.map(\.rawValue).joined(separator: ", "),
                    source: source, entity: entity?.name, property: name))
        }
        let isToMany = xml.flag("toMany")
        return Relationship(
            name: name, destination: xml["destinationEntity"] ?? "", inverse: xml["inverseName"],
            isToMany: isToMany, isOrdered: xml.flag("ordered"),
            minCount: xml["minCount"].flatMap { Int($0) } ?? 0,
            maxCount: xml["maxCount"].flatMap { Int($0) } ?? (isToMany ? 0 : 1),
            deleteRule: rule ?? .nullify, isOptional: xml.flag("optional"), isTransient: xml.flag("transient"),
            renamingIdentifier: xml.renamingIdentifier, versionHashModifier: xml["versionHashModifier"])
    }
}

/// The attributes of one XML element, with Xcode's `YES`/`NO` flags.
struct XMLAttributes {
    let values: [String: String]

    subscript(_ key: String) -> String? { values[key] }

    func flag(_ key: String) -> Bool { values[key] == "YES" }

    /// Xcode writes the inspector's "Renaming ID" as `elementID` (Core Data's `renamingIdentifier`;
    /// `momc` ignores an attribute spelled `renamingIdentifier`, so it is not read either).
    var renamingIdentifier: String? { values["elementID"] }
}
