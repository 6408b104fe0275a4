import Foundation
import SeedModel
import SeedStore

/// A column that feeds no property would lose its values silently; it stops the build instead,
/// naming the nearest property names ("lat: did you mean latitude?").
extension ColumnMapping {
    static func unmatchedColumns(
        _ columns: [(offset: Int, element: String)], header: [String], table: EntityTable, keys: [String: [[Attribute]]], file: String
    ) -> IngestError {
        let properties = propertyNames(of: table, keys: keys)
        let lines = columns.map { column -> String in
            if let link = linkHint(column.element, entity: table.entity) { return "\(column.element): \(link)" }
            let near = NameSuggestions.nearest(to: column.element, among: properties, normalize: normalize)
            let hint = near.isEmpty ? "no property of \(table.entity.name) is close" : "did you mean \(near.joined(separator: " or "))?"
            return "\(column.element): \(hint)"
        }
        let first = columns[0].element
        return IngestError(
            .badData, file: file, line: 1, column: columns[0].offset + 1, field: first,
            "\(columns.count == 1 ? "a column matches" : "\(columns.count) columns match") no property of \(table.entity.name), so \(columns.count == 1 ? "its" : "their") values would be lost: \(lines.joined(separator: "; ")). Rename the column, map it in --mapping ({\"\(table.entity.name)\": {\"\(first)\": \"property\"}}), or skip it on purpose with --ignore-column \(first) or {\"\(table.entity.name)\": {\"\(first)\": null}} in the mapping file"
        )
    }

    /// What to say of a column named as a to-many relationship, or as a to-one the layout keeps in
    /// the join table of its ordered inverse: a link file feeds it, not a column.
    static func linkHint(_ column: String, entity: Entity) -> String? {
        let name = normalize(column)
        if let toOne = entity.relationships.first(where: { !$0.isToMany && !$0.isTransient && name.hasPrefix(normalize($0.name)) }),
            let inverse = toOne.inverse
        {
            let target = "\(toOne.destination).\(inverse)"
            return
                "\(entity.name).\(toOne.name) is kept with the ordered \(target) in the plain layout, which a link file feeds, in order: \(toOne.destination.lowercased())s_\(inverse).csv (or --source \(target)=FILE) with the columns \(toOne.destination.lowercased())_<key> and \(inverse)_<key>; or build --format coredata, where this column feeds it"
        }
        guard let relationship = entity.relationships.first(where: { $0.isToMany && relationshipPrefixes($0.name).contains(name) }) else {
            return nil
        }
        let target = "\(entity.name).\(relationship.name)"
        return
            "\(target) is a to-many relationship, which a link file feeds, one row per link: \(entity.name.lowercased())s_\(relationship.name).csv beside this file (or --source \(target)=FILE) with the columns \(entity.name.lowercased())_<key> and \(relationship.name)_<key>, each naming an object by its uniqueness constraint (docs/ingest.md)"
    }

    /// The names a column can take for this table: attributes, and to-one relationships with their key form.
    static func propertyNames(of table: EntityTable, keys: [String: [[Attribute]]]) -> [String] {
        table.columns.flatMap { column -> [String] in
            switch column.kind {
            case .primaryKey, .entity, .version, .toOneEntity, .toOneOrder, .toManyWithoutInverse: []
            case .attribute(let attribute): [attribute.name]
            case .toOne(let relationship):
                [relationship.name] + (keys[relationship.destination] ?? []).joined().map { "\(relationship.name)_\($0.name)" }
            }
        }
    }
}
