/// A readable listing of a model, as `seedbuild model show` prints it.
extension Model {
    /// Entities with their attributes, relationships and fetched properties, then the configurations.
    public func summary() -> String {
        var lines: [String] = []
        let identifiers = versionIdentifiers.isEmpty ? "none" : versionIdentifiers.joined(separator: ", ")
        lines.append("model \(name) (version identifiers: \(identifiers))")
        for entity in entities {
            lines.append("")
            let configurations = self.configurations.filter { $0.entities.contains(entity.name) }.map(\.name)
            var heading = "entity \(entity.name)"
            if !configurations.isEmpty { heading += " [\(configurations.joined(separator: ", "))]" }
            if let origin = entity.origin { heading += " from \(origin)" }
            lines.append(heading)
            for attribute in entity.attributes {
                lines.append("  " + describe(attribute, in: entity))
            }
            for relationship in entity.relationships {
                var text = "  \(relationship.name): \(relationship.isToMany ? "to-many" : "to-one") \(relationship.destination)"
                if relationship.isOrdered { text += ", ordered" }
                if let inverse = relationship.inverse { text += ", inverse \(inverse)" }
                text += ", delete rule \(relationship.deleteRule.rawValue)"
                text += relationship.isOptional ? ", optional" : ", required"
                if relationship.isTransient { text += ", transient" }
                if relationship.minCount != 0 || (relationship.isToMany && relationship.maxCount > 0) {
                    text += ", count \(relationship.minCount)…\(relationship.maxCount <= 0 ? "∞" : String(relationship.maxCount))"
                }
                lines.append(text)
            }
            for fetched in entity.fetchedProperties {
                lines.append("  \(fetched.name): fetched \(fetched.entity) where \(fetched.predicate)")
            }
            for constraint in entity.uniquenessConstraints {
                lines.append("  unique (\(constraint.joined(separator: ", ")))")
            }
            for index in entity.indexes {
                let elements = index.elements.map { $0.property + ($0.isAscending ? "" : " desc") }
                lines.append("  index \(index.name) (\(elements.joined(separator: ", ")))")
            }
        }
        lines.append("")
        lines.append("configurations:")
        for configuration in configurations {
            lines.append("  \(configuration.name): \(configuration.entities.joined(separator: ", "))")
        }
        lines.append("  \(Configuration.defaultName): every entity")
        return lines.joined(separator: "\n")
    }

    private func describe(_ attribute: Attribute, in entity: Entity) -> String {
        var flags: [String] = [attribute.isOptional ? "optional" : "required"]
        if attribute.isTransient { flags.append("transient") }
        if attribute.isIndexed { flags.append("indexed") }
        if let value = attribute.effectiveDefaultValue { flags.append("default \(value)") }
        if attribute.minValue != nil || attribute.maxValue != nil {
            flags.append("range \(attribute.minValue ?? "")…\(attribute.maxValue ?? "")")
        }
        if let old = attribute.renamingIdentifier, old != attribute.name { flags.append("renamed from \(old)") }
        if let modifier = attribute.versionHashModifier { flags.append("hash modifier \(modifier)") }
        return "\(attribute.name): \(attribute.type.rawValue), \(flags.joined(separator: ", "))"
    }
}
