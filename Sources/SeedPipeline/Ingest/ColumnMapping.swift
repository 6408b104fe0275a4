import Foundation
import SeedModel
import SeedStore

/// Which CSV field feeds each column of an entity's table.
///
/// Headers match attributes by name, ignoring case, `_`, `-` and spaces (`country_code` → `countryCode`),
/// or by the attribute's renaming identifier (its old name);
/// a to-one relationship is fed by a column named after it or `<relationship>_<key>` (`county`,
/// `county_code`) holding the destination's key value, or, for a compound uniqueness constraint, one
/// `<relationship>_<attribute>` column per part (`county_name`, `county_state`). A mapping file
/// renames columns first. The rules are stated in full in `docs/ingest.md`.
public struct ColumnMapping: Sendable {
    /// Where one table column's value comes from.
    public enum Feed: Sendable {
        /// The CSV field at this 0-based index, converted to the attribute's type.
        case attribute(field: Int, Attribute)
        /// The CSV fields at these indexes hold the destination's key — one attribute, or the parts of
        /// a compound uniqueness constraint in order — looked up to its primary key.
        case reference(fields: [Int], Relationship, destination: String, key: [Attribute])
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
    ///   - keys: destination entity → the uniqueness constraints its references can be looked up by,
    ///     single-attribute ones first.
    ///   - ignored: column names to skip (compared as ``normalize(_:)`` does).
    ///   - entity: the entity the file's rows are, with its inherited properties, when the table holds
    ///     an inheritance tree: columns of the tree's other entities stay empty.
    /// - Throws: ``IngestError`` naming the file and the property when a required column is missing,
    ///   or naming a column that matches no property (its values would be lost) with the nearest names.
    package init(
        header: [String], table: EntityTable, file: String, renames: [String: String], keys: [String: [[Attribute]]],
        ignored: Set<String> = [], entity: Entity? = nil
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
                    "columns \(other + 1) \"\(header[other])\" and \(index + 1) \"\(name)\" both name \(table.entity.name).\(normalizedRenames[Self.normalize(header[other])] ?? header[other]) (names are compared ignoring case, '_', '-' and spaces); rename or drop one, or skip one with --ignore-column"
                )
            }
            fieldsByName[Self.normalize(target)] = index
        }
        var feeds: [Feed] = []
        for column in table.columns {
            switch column.kind {
            case .primaryKey:
                continue
            case .entity:
                // Every row of the file is of one entity: a constant, fed as the column's default
                // (its name, or Core Data's entity number).
                let value = table.entityValue(entity?.name ?? table.entity.name)
                let type: AttributeType = value.integerValue == nil ? .string : .integer64
                feeds.append(.absent(Attribute(name: column.name, type: type, isOptional: false, defaultValue: value.displayText)))
            case .version:
                // Core Data's Z_OPT: 1 for a row as first inserted.
                feeds.append(.absent(Attribute(name: column.name, type: .integer64, isOptional: false, defaultValue: "1")))
            case .toOneEntity(let relationship), .toOneOrder(let relationship), .toManyWithoutInverse(_, let relationship):
                // Filled from the loaded rows once every table is in (SeedBuilder+CoreData).
                feeds.append(.absentReference(relationship))
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
                        "no column for required attribute \(entity?.name ?? table.entity.name).\(attribute.name); add a column named \"\(attribute.name)\" or map one to it with --mapping"
                    )
                }
            case .toOne(let relationship):
                let candidates = keys[relationship.destination] ?? []
                if let (fields, key) = Self.referenceFields(relationship, keys: candidates, fieldsByName: fieldsByName) {
                    feeds.append(.reference(fields: fields, relationship, destination: relationship.destination, key: key))
                    used.formUnion(fields)
                } else if candidates.isEmpty, let field = fieldsByName[Self.normalize(relationship.name)] {
                    throw IngestError(
                        .badData, file: file, line: 1, column: field + 1, field: header[field],
                        "\(table.entity.name).\(relationship.name) cannot be filled from CSV: \(relationship.destination) has no uniqueness constraint to look its objects up by; add one in the model"
                    )
                } else if entity?.relationship(named: relationship.name)?.isOptional ?? relationship.isOptional {
                    // No column feeds it: it needs no key.
                    feeds.append(.absentReference(relationship))
                } else {
                    let forms = candidates.map { key in
                        key.count == 1
                            ? "\"\(relationship.name)\" or \"\(relationship.name)_\(key[0].name)\" holding \(relationship.destination).\(key[0].name) values"
                            : key.map { "\"\(relationship.name)_\($0.name)\"" }.joined(separator: " and ")
                    }
                    throw IngestError(
                        .badData, file: file, line: 1, field: relationship.name,
                        forms.isEmpty
                            ? "no column can feed required relationship \(entity?.name ?? table.entity.name).\(relationship.name): \(relationship.destination) has no uniqueness constraint; add one in the model"
                            : "no column for required relationship \(entity?.name ?? table.entity.name).\(relationship.name); add \(forms.joined(separator: ", or "))"
                    )
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

    /// The first key whose columns the header has: `county` or `county_code` for a one-attribute key,
    /// `county_name` and `county_state` for a compound one.
    static func referenceFields(_ relationship: Relationship, keys: [[Attribute]], fieldsByName: [String: Int]) -> ([Int], [Attribute])? {
        for key in keys {
            if key.count == 1 {
                let names = [relationship.name, "\(relationship.name)_\(key[0].name)"].map(normalize)
                if let field = names.lazy.compactMap({ fieldsByName[$0] }).first { return ([field], key) }
            } else {
                let fields = key.compactMap { fieldsByName[normalize("\(relationship.name)_\($0.name)")] }
                if fields.count == key.count { return (fields, key) }
            }
        }
        return nil
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
    /// The file it was read from, for messages; nil when built in code.
    public var path: String?

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
        let shape =
            #"a mapping file maps entity names to {"csv column": "property"} objects, null skipping a column, e.g. {"Postcode": {"pcds": "postcode", "objectid": null}}"#
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw IngestError(.badProjectFile, file: path, shape)
        }
        var mapping = MappingFile()
        mapping.path = path
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
