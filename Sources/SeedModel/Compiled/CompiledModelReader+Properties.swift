import Foundation

/// Attributes, relationships and fetched properties of a compiled model.
extension CompiledModelReader {
    /// A property's flags: `_P` where the archive has it, else the oldest files' `NSIs…` keys.
    struct PropertyFlags {
        var isOptional: Bool
        var isTransient: Bool
        var isReadOnly: Bool
        var isOrdered: Bool

        init(_ property: ArchivedObject, in archive: KeyedArchive) {
            if let bits = archive.integer(property["_P"]) {
                isOptional = bits & 2 != 0
                isReadOnly = bits & 4 != 0
                isTransient = bits & 8 != 0
                isOrdered = bits & 1024 != 0
            } else {
                isOptional = archive.flag(property["NSIsOptional"])
                isReadOnly = archive.flag(property["NSIsReadOnly"])
                isTransient = archive.flag(property["NSIsTransient"])
                isOrdered = archive.flag(property["NSIsOrdered"])
            }
        }
    }

    /// Core Data's `NSDeleteRule` numbers.
    static let deleteRules: [Int64: DeleteRule] = [0: .noAction, 1: .nullify, 2: .cascade, 3: .deny]

    mutating func readProperty(_ property: ArchivedObject, named name: String, into entity: inout Entity, in archive: KeyedArchive) {
        let flags = PropertyFlags(property, in: archive)
        let modifier = archive.string(property["NSVersionHashModifier"]).flatMap { $0.isEmpty ? nil : $0 }
        let renaming = Self.renamingIdentifier(archive.string(property["NSRenamingIdentifier"]), name: name)
        let userInfo = Self.userInfo(property["NSUserInfo"], in: archive)
        if property.isKind(of: "NSRelationshipDescription") {
            let destination =
                archive.string(property["_NSDestinationEntityName"])
                ?? archive.object(property["NSDestinationEntity"]).flatMap { archive.string($0["NSEntityName"]) }
            guard let destination else {
                problem("the relationship has no destination entity; rebuild the model with Xcode", entity: entity.name, property: name)
                return
            }
            let inverse =
                archive.string(property["_NSInverseRelationshipName"])
                ?? archive.object(property["NSInverseRelationship"]).flatMap { archive.string($0["NSPropertyName"]) }
            let ruleNumber = archive.integer(property["NSDeleteRule"]) ?? 1
            guard let rule = Self.deleteRules[ruleNumber] else {
                problem("unknown delete rule number \(ruleNumber); Core Data's are 0 to 3", entity: entity.name, property: name)
                return
            }
            // Kept as archived (a to-many may say -1 for "no maximum"): Core Data hashes the number as it is.
            let maxCount = Int(archive.integer(property["NSMaxCount"]) ?? 0)
            entity.relationships.append(
                Relationship(
                    name: name, destination: destination, inverse: inverse, isToMany: maxCount != 1, isOrdered: flags.isOrdered,
                    minCount: Int(archive.integer(property["NSMinCount"]) ?? 0), maxCount: maxCount, deleteRule: rule,
                    isOptional: flags.isOptional, isTransient: flags.isTransient, isReadOnly: flags.isReadOnly,
                    renamingIdentifier: renaming, versionHashModifier: modifier, userInfo: userInfo))
        } else if property.isKind(of: "NSFetchedPropertyDescription") {
            let request = archive.object(property["NSFetchRequest"])
            let target =
                archive.string(property["_NSFetchRequestEntityName"])
                ?? request.flatMap { archive.object($0["NSEntity"]) }.flatMap { archive.string($0["NSEntityName"]) } ?? ""
            do throws(ArchivedPredicateFormat.Unsupported) {
                let predicate = try ArchivedPredicateFormat(archive: archive).predicate(request?["NSPredicate"])
                entity.fetchedProperties.append(
                    FetchedProperty(
                        name: name, entity: target, predicate: predicate ?? "", isOptional: flags.isOptional, userInfo: userInfo))
            } catch {
                problem(
                    "the fetched property's predicate uses \(error.what), which seedbuild cannot read; simplify it in Xcode",
                    entity: entity.name, property: name)
            }
        } else if property.isKind(of: "NSAttributeDescription") {
            if let attribute = readAttribute(property, named: name, flags: flags, entity: entity.name, in: archive) {
                var attribute = attribute
                attribute.renamingIdentifier = renaming
                attribute.versionHashModifier = modifier
                attribute.userInfo = userInfo
                entity.attributes.append(attribute)
            }
        } else {
            problem(
                "a property of an unknown kind (\(property.className)); seedbuild reads attributes, relationships and fetched properties",
                entity: entity.name, property: name)
        }
    }

    private mutating func readAttribute(
        _ property: ArchivedObject, named name: String, flags: PropertyFlags, entity: String, in archive: KeyedArchive
    ) -> Attribute? {
        let code = archive.integer(property["NSAttributeType"]) ?? 0
        guard let type = UInt32(exactly: code).flatMap(AttributeType.init(coreDataCode:)) else {
            let known = AttributeType.allCases.map { "\($0.coreDataCode) \($0.rawValue)" }.joined(separator: ", ")
            problem("unknown attribute type number \(code); Core Data's are \(known)", entity: entity, property: name)
            return nil
        }
        var derivation: Attribute.Derivation?
        if property.isKind(of: "NSDerivedAttributeDescription") || property["NSDerivationExpression"] != nil {
            let format = ArchivedPredicateFormat(archive: archive)
            do throws(ArchivedPredicateFormat.Unsupported) {
                derivation = Attribute.Derivation(
                    expression: try format.expression(property["NSDerivationExpression"]),
                    filterPredicate: try format.predicate(property["NSFilteringPredicate"]))
            } catch {
                problem(
                    "the derivation uses \(error.what), which seedbuild cannot read; simplify it in Xcode", entity: entity, property: name)
                return nil
            }
        }
        let storage = archive.integer(property["NSFlagsKey"]) ?? 0
        let range = Self.valueRange(property["NSValidationPredicates"], in: archive)
        return Attribute(
            name: name, type: type, isOptional: flags.isOptional, isTransient: flags.isTransient, isReadOnly: flags.isReadOnly,
            defaultValue: defaultValue(property["NSDefaultValue"], in: archive).map { DefaultValueCheck.reading($0, for: type) ?? $0 },
            minValue: range.minimum, maxValue: range.maximum, isIndexed: archive.flag(property["NSIsIndexed"]),
            valueTransformerName: archive.string(property["NSValueTransformerName"]),
            allowsExternalBinaryDataStorage: storage & 4 != 0, preservesValueInHistoryOnDeletion: storage & 16 != 0,
            derivation: derivation)
    }

    /// A default written as the `.xcdatamodel` writes it: numbers, `YES`/`NO`, text, a date's
    /// seconds since 2001, a UUID or URL string. Other archived objects (a decimal number, a
    /// transformable value) are not read.
    private func defaultValue(_ value: PropertyListValue?, in archive: KeyedArchive) -> String? {
        guard let value else { return nil }
        switch archive.resolve(value) {
        case .null: return nil
        case .bool(let flag): return flag ? "YES" : "NO"
        case .integer(let number): return String(number)
        case .real(let number), .date(let number): return KeyedArchive.text(of: number)
        case .string(let text): return text
        default: break
        }
        if let text = archive.string(value) { return text }
        guard let object = archive.object(value) else { return nil }
        if case .real(let seconds)? = object["NS.time"].map(archive.resolve) { return KeyedArchive.text(of: seconds) }
        if case .data(let bytes)? = object["NS.uuidbytes"].map(archive.resolve), bytes.count == 16 {
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )
            ).uuidString
        }
        if object.isKind(of: "NSURL"), object["NS.base"].map(archive.resolve) ?? .null == .null {
            return archive.string(object["NS.relative"])
        }
        return nil
    }
}
