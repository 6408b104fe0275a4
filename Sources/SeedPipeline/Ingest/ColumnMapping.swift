import Foundation
import SeedModel
import SeedStore

/// Which CSV field feeds each column of an entity's table.
///
/// Headers match attributes by name, ignoring case, `_`, `-` and spaces (`country_code` → `countryCode`),
/// or by the attribute's renaming identifier (its old name);
/// a to-one relationship is fed by a column named after it or `<relationship>_<key>` (`county`,
/// `county_code`), holding the destination's key value. A mapping file renames columns first.
public struct ColumnMapping: Sendable {
    /// Where one table column's value comes from.
    public enum Feed: Sendable {
        /// The CSV field at this 0-based index, converted to the attribute's type.
        case attribute(field: Int, Attribute)
        /// The CSV field at this index holds the destination's key value, looked up to its primary key.
        case reference(field: Int, Relationship, destination: String, key: Attribute)
        /// No field: the attribute's default, or NULL.
        case absent(Attribute)
        /// No field for an optional to-one relationship: NULL.
        case absentReference(Relationship)
    }

    /// One entry per table column except a rowid primary key, in table column order.
    public let feeds: [Feed]
    /// Header names that feed nothing (reported once as a warning).
    public let unknownColumns: [String]

    /// Maps a file's header to a table.
    /// - Parameters:
    ///   - renames: CSV column name → property name, from the mapping file, for this entity.
    ///   - keys: destination entity → the single attribute its references are looked up by.
    ///   - entity: the entity the file's rows are, with its inherited properties, when the table holds
    ///     an inheritance tree: columns of the tree's other entities stay empty.
    /// - Throws: ``IngestError`` naming the file and the property when a required column is missing.
    public init(
        header: [String], table: EntityTable, file: String, renames: [String: String], keys: [String: Attribute],
        entity: Entity? = nil
    ) throws(IngestError) {
        let normalizedRenames = Dictionary(renames.map { (Self.normalize($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        var fieldsByName: [String: Int] = [:]
        var used = Set<Int>()
        for (index, name) in header.enumerated() {
            let target = normalizedRenames[Self.normalize(name)] ?? name
            fieldsByName[Self.normalize(target)] = fieldsByName[Self.normalize(target)] ?? index
        }
        var feeds: [Feed] = []
        for column in table.columns {
            switch column.kind {
            case .primaryKey:
                continue
            case .entity:
                // Every row of the file is of one entity: a constant, fed as the column's default.
                let name = entity?.name ?? table.name
                feeds.append(.absent(Attribute(name: column.name, type: .string, isOptional: false, defaultValue: name)))
            case .attribute(let attribute) where entity.map { $0.attribute(named: attribute.name) == nil } ?? false:
                // Another entity's attribute in the tree's table.
                feeds.append(.absent(attribute))
            case .toOne(let relationship) where entity.map { $0.relationship(named: relationship.name) == nil } ?? false:
                feeds.append(.absentReference(relationship))
            case .attribute(let attribute) where attribute.derivation != nil:
                // Computed from the other values once the rows are in, never read.
                feeds.append(.absent(attribute))
            case .attribute(let tableAttribute):
                // In a tree's table, the entity's own declaration says whether a value is required.
                let attribute = entity?.attribute(named: tableAttribute.name) ?? tableAttribute
                // A column may still carry the attribute's old name (its renaming identifier).
                let names = [attribute.name] + (attribute.renamingIdentifier.map { [$0] } ?? [])
                if let field = names.lazy.compactMap({ fieldsByName[Self.normalize($0)] }).first {
                    feeds.append(.attribute(field: field, attribute))
                    used.insert(field)
                } else if attribute.isOptional || attribute.effectiveDefaultValue != nil {
                    feeds.append(.absent(attribute))
                } else {
                    throw IngestError(
                        .badData, file: file, line: 1, field: attribute.name,
                        "no column for required attribute \(entity?.name ?? table.name).\(attribute.name); add a column named \"\(attribute.name)\" or map one to it with --mapping")
                }
            case .toOne(let relationship):
                guard let key = keys[relationship.destination] else {
                    throw IngestError(
                        .badData, file: file, field: relationship.name,
                        "\(table.name).\(relationship.name) cannot be filled from CSV: \(relationship.destination) has no single-attribute uniqueness constraint to look its objects up by; add one in the model")
                }
                let candidates = [relationship.name, "\(relationship.name)_\(key.name)"].map(Self.normalize)
                if let field = candidates.lazy.compactMap({ fieldsByName[$0] }).first {
                    feeds.append(.reference(field: field, relationship, destination: relationship.destination, key: key))
                    used.insert(field)
                } else if entity?.relationship(named: relationship.name)?.isOptional ?? relationship.isOptional {
                    feeds.append(.absentReference(relationship))
                } else {
                    throw IngestError(
                        .badData, file: file, line: 1, field: relationship.name,
                        "no column for required relationship \(entity?.name ?? table.name).\(relationship.name); add a column \"\(relationship.name)\" or \"\(relationship.name)_\(key.name)\" holding \(relationship.destination).\(key.name) values")
                }
            }
        }
        self.feeds = feeds
        self.unknownColumns = header.enumerated().filter { !used.contains($0.offset) }.map(\.element)
    }

    /// Lowercase, without `_`, `-` and spaces.
    public static func normalize(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" && $0 != " " })
    }
}

/// The `--mapping` file: per entity, CSV column name → property name.
///
/// ```json
/// { "Postcode": { "pcds": "postcode", "oscty": "county" } }
/// ```
public struct MappingFile: Sendable, Equatable {
    public var renames: [String: [String: String]]

    public init(renames: [String: [String: String]] = [:]) {
        self.renames = renames
    }

    public static func load(_ path: String) throws(IngestError) -> MappingFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw IngestError(.missingInput, file: path, "cannot read the mapping file; check the path")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let renames = object as? [String: [String: String]]
        else {
            throw IngestError(
                .badProjectFile, file: path,
                #"a mapping file maps entity names to {"csv column": "property"} objects, e.g. {"Postcode": {"pcds": "postcode"}}"#)
        }
        return MappingFile(renames: renames)
    }
}
