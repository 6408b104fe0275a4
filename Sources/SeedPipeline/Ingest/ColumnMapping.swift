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
    /// Header names skipped on purpose (by the mapping file or `--ignore-column`).
    public let ignoredColumns: [String]

    /// Maps a file's header to a table.
    /// - Parameters:
    ///   - renames: CSV column name → property name, from the mapping file, for this entity.
    ///   - keys: destination entity → the single attribute its references are looked up by.
    ///   - ignored: column names to skip (compared as ``normalize(_:)`` does).
    /// - Throws: ``IngestError`` naming the file and the property when a required column is missing,
    ///   or naming a column that matches no property (its values would be lost) with the nearest names.
    public init(
        header: [String], table: EntityTable, file: String, renames: [String: String], keys: [String: Attribute],
        ignored: Set<String> = []
    ) throws(IngestError) {
        let normalizedRenames = Dictionary(renames.map { (Self.normalize($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        let ignoredNames = Set(ignored.map(Self.normalize))
        var fieldsByName: [String: Int] = [:]
        var used = Set<Int>()
        for (index, name) in header.enumerated() where !ignoredNames.contains(Self.normalize(name)) {
            let target = normalizedRenames[Self.normalize(name)] ?? name
            // Two columns for one property (postcode, POSTCODE): which one holds the data is a guess.
            if let other = fieldsByName[Self.normalize(target)] {
                throw IngestError(
                    .badData, file: file, line: 1, column: index + 1, field: name,
                    "columns \(other + 1) \"\(header[other])\" and \(index + 1) \"\(name)\" both name \(table.name).\(normalizedRenames[Self.normalize(header[other])] ?? header[other]) (names are compared ignoring case, '_', '-' and spaces); rename or drop one, or skip one with --ignore-column")
            }
            fieldsByName[Self.normalize(target)] = index
        }
        var feeds: [Feed] = []
        for column in table.columns {
            switch column.kind {
            case .primaryKey:
                continue
            case .attribute(let attribute):
                // A column may still carry the attribute's old name (its renaming identifier).
                let names = [attribute.name] + (attribute.renamingIdentifier.map { [$0] } ?? [])
                if let field = names.lazy.compactMap({ fieldsByName[Self.normalize($0)] }).first {
                    feeds.append(.attribute(field: field, attribute))
                    used.insert(field)
                } else if attribute.isOptional || attribute.defaultValue != nil {
                    feeds.append(.absent(attribute))
                } else {
                    throw IngestError(
                        .badData, file: file, line: 1, field: attribute.name,
                        "no column for required attribute \(table.name).\(attribute.name); add a column named \"\(attribute.name)\" or map one to it with --mapping")
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
                } else if relationship.isOptional {
                    feeds.append(.absentReference(relationship))
                } else {
                    throw IngestError(
                        .badData, file: file, line: 1, field: relationship.name,
                        "no column for required relationship \(table.name).\(relationship.name); add a column \"\(relationship.name)\" or \"\(relationship.name)_\(key.name)\" holding \(relationship.destination).\(key.name) values")
                }
            }
        }
        self.feeds = feeds
        let unused = header.enumerated().filter { !used.contains($0.offset) }
        self.ignoredColumns = unused.map(\.element).filter { ignoredNames.contains(Self.normalize($0)) }
        let unmatched = unused.filter { !ignoredNames.contains(Self.normalize($0.element)) }
        if !unmatched.isEmpty {
            throw Self.unmatchedColumns(unmatched, header: header, table: table, keys: keys, file: file)
        }
    }

    /// Lowercase, without `_`, `-` and spaces.
    public static func normalize(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" && $0 != " " })
    }
}

/// The `--mapping` file: per entity, CSV column name → property name, or `null` to skip the column.
///
/// ```json
/// { "Postcode": { "pcds": "postcode", "oscty": "county", "objectid": null } }
/// ```
public struct MappingFile: Sendable, Equatable {
    public var renames: [String: [String: String]]
    /// Per entity, columns skipped on purpose.
    public var ignored: [String: Set<String>]
    /// Columns skipped in every file (`--ignore-column`).
    public var ignoredEverywhere: Set<String>

    public init(renames: [String: [String: String]] = [:], ignored: [String: Set<String>] = [:], ignoredEverywhere: Set<String> = []) {
        self.renames = renames
        self.ignored = ignored
        self.ignoredEverywhere = ignoredEverywhere
    }

    /// The columns an entity's file may hold without feeding anything.
    public func ignoredColumns(of entity: String) -> Set<String> {
        ignoredEverywhere.union(ignored[entity] ?? [])
    }

    public static func load(_ path: String) throws(IngestError) -> MappingFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw IngestError(.missingInput, file: path, "cannot read the mapping file; check the path")
        }
        let shape = #"a mapping file maps entity names to {"csv column": "property"} objects, null skipping a column, e.g. {"Postcode": {"pcds": "postcode", "objectid": null}}"#
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw IngestError(.badProjectFile, file: path, shape)
        }
        var mapping = MappingFile()
        for (entity, value) in object {
            guard let columns = value as? [String: Any] else { throw IngestError(.badProjectFile, file: path, shape) }
            for (column, target) in columns {
                switch target {
                case let property as String: mapping.renames[entity, default: [:]][column] = property
                case is NSNull: mapping.ignored[entity, default: []].insert(column)
                default: throw IngestError(.badProjectFile, file: path, "\(entity).\(column): \(shape)")
                }
            }
        }
        return mapping
    }
}
