import SeedModel

/// Core Data's SQLite layout of a model, as Apple's framework creates it (`docs/store-format.md`,
/// "Core Data's layout"): entity numbers, one `Z`-prefixed table per root entity with `Z_PK`, `Z_ENT` and `Z_OPT`,
/// columns named and typed as Core Data names and types them, many-to-many join tables and
/// `Z_PRIMARYKEY`'s rows. Checked against stores Apple's code wrote.
///
/// ```swift
/// let layout = try CoreDataSchema(model: mergedModel, configuration: "PostCodesConf")
/// let renamed = layout.joinTables.filter { $0.alsoReadableAs != nil }   // self-referential pairs read under two names
/// ```
/// Its `CREATE TABLE` statements are SeedStore's (`CoreDataSchema+DDL.swift`), which creates stores.
package struct CoreDataSchema: Sendable {
    package struct Column: Sendable, Hashable {
        package enum Kind: Sendable, Hashable {
            case primaryKey, entity, version
            /// A persistent attribute of `entity`.
            case attribute(entity: String, name: String)
            /// A to-one relationship of `entity`: the destination's `Z_PK`.
            case toOne(entity: String, name: String)
            /// The destination's entity number, for a to-one into an inheritance tree.
            case toOneEntity(entity: String, name: String)
            /// The object's position in the inverse ordered to-many.
            case toOneOrder(entity: String, name: String)
            /// A to-many without inverse of `entity` (declared on the source, stored on the destination).
            case toManyWithoutInverse(entity: String, name: String)
        }

        package var name: String
        /// `INTEGER`, `FLOAT`, `DECIMAL`, `TIMESTAMP`, `VARCHAR` or `BLOB`.
        package var type: String
        package var kind: Kind
    }

    /// The table of one root entity, holding the rows of its whole tree.
    package struct Table: Sendable {
        package var name: String
        package var root: String
        /// The entities of the tree, in entity-number order.
        package var members: [String]
        package var columns: [Column]
    }

    /// The join table of a many-to-many pair.
    package struct JoinTable: Sendable {
        package var name: String
        /// Two key columns (each named by the relationship pointing at its side), then order columns.
        package var columns: [Column]
        /// The relationship on the side with the lower entity number, and its inverse.
        package var relationship: (entity: String, name: String)
        package var inverse: (entity: String, name: String)
        /// For a self-referential pair whose name is not certain (no store fixed it), the pair's
        /// other name: a read-only view of this table under it, so that Core Data finds the rows
        /// under whichever name it derives (`docs/store-format.md`, "Self-referential join tables").
        package var alsoReadableAs: String?

        /// Core Data's index on the second key column, then the first.
        package var indexName: String { "\(name)_\(columns[1].name)_INDEX" }

        /// `CREATE TABLE` as Core Data writes it, keyed by the two key columns.
        package var createStatement: String {
            let keys = columns.prefix(2).map(\.name)
            return "CREATE TABLE \(name) ( " + columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
                + ", PRIMARY KEY (\(keys.joined(separator: ", "))) )"
        }

        /// `CREATE VIEW` of ``alsoReadableAs``: the same columns, in the order Core Data gives a table
        /// of that name (the two keys swapped, and the two order columns).
        package var viewStatement: String? {
            guard let view = alsoReadableAs else { return nil }
            let keys = columns.prefix(2).reversed().map(\.name)
            let orders = columns.dropFirst(2).reversed().map(\.name)
            return "CREATE VIEW \(view) AS SELECT \((keys + orders).joined(separator: ", ")) FROM \(name)"
        }
    }

    /// One row of `Z_PRIMARYKEY`.
    package struct PrimaryKeyRow: Sendable, Hashable {
        package var entity: Int
        package var name: String
        package var superEntity: Int

        package init(entity: Int, name: String, superEntity: Int) {
            self.entity = entity
            self.name = name
            self.superEntity = superEntity
        }
    }

    /// Entity name → Core Data's entity number (`Z_ENT`), over the whole model.
    package let entityNumbers: [String: Int]
    /// Tables of the configuration's entities, in entity-number order of their roots.
    package let tables: [Table]
    package let joinTables: [JoinTable]
    /// One row per entity of the whole model, in entity-number order (Core Data compares every entity);
    /// an entity renamed since the store was written keeps its old name, as Core Data leaves it.
    package let primaryKeyRows: [PrimaryKeyRow]
    /// The numbers and names the layout follows (a new store's, or an existing one's).
    package let conventions: CoreDataConventions

    /// Lays out the entities of one configuration of `model`, the model the store is stamped for.
    /// - Parameter conventions: an existing store's: its `Z_PRIMARYKEY` numbers win over the model's
    ///   order for the entities they name (an entity renamed since, by its renaming identifier, and
    ///   it keeps the old name there), its framework version decides the names that changed, and its
    ///   self-referential join tables keep their names.
    package init(model: Model, configuration name: String, conventions: CoreDataConventions = .current) throws(ModelError) {
        guard let configuration = model.configuration(named: name) else {
            throw .invalid(
                "no configuration named \"\(name)\"; the model has \(model.configurationNames.joined(separator: ", "))",
                source: model.source)
        }
        let ordered = model.entitiesInTreeOrder
        let names = Set(ordered.map(\.name))
        var numbers: [String: Int] = [:]
        var storedNames: [String: String] = [:]
        var unnumbered: [Entity] = []
        for entity in ordered {
            if let number = conventions.entityNumbers[entity.name] {
                numbers[entity.name] = number
            } else if let old = entity.renamingIdentifier, !names.contains(old), let number = conventions.entityNumbers[old] {
                numbers[entity.name] = number
                storedNames[entity.name] = old
            } else {
                unnumbered.append(entity)
            }
        }
        // Entities the store does not number (a model with more of them) come after its numbers, in model order.
        let next = numbers.isEmpty ? 1 : (numbers.values.max() ?? 0) + 1
        for (offset, entity) in unnumbered.enumerated() {
            numbers[entity.name] = numbers.isEmpty && offset == 0 ? (ordered.firstIndex { $0.name == entity.name } ?? 0) + 1 : next + offset
        }
        // Stored numbers that would give two entities one number do not describe this model: number it afresh.
        if Set(numbers.values).count < numbers.count {
            numbers = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1.name, $0 + 1) })
            storedNames = [:]
        }
        entityNumbers = numbers
        primaryKeyRows = ordered.map { entity in
            PrimaryKeyRow(
                entity: numbers[entity.name]!, name: storedNames[entity.name] ?? entity.name,
                superEntity: entity.parentEntity.flatMap { numbers[$0] } ?? 0)
        }.sorted { $0.entity < $1.entity }
        let members = Set(configuration.entities)
        var layout = CoreDataTableLayout(model: model, numbers: numbers, joinTableNames: conventions.joinTableNames)
        for root in ordered where model.superentity(of: root) == nil && members.contains(root.name) {
            layout.addTable(root: root)
        }
        layout.addJoinTables(members: members)
        tables = layout.tables
        joinTables = layout.joinTables
        // What the layout fixed for its self-referential pairs, so that a conversion keeps it.
        var fixed = conventions
        fixed.joinTableNames = [:]
        fixed.joinTableIndexes = [:]
        for join in joinTables where join.relationship.entity == join.inverse.entity {
            fixed.joinTableNames[join.name] = .table
            if let view = join.alsoReadableAs { fixed.joinTableNames[view] = .view }
            // Core Data renamed such a table in place when a migration worked out its other name, and
            // left the index it had under that name (Wire 2.96): kept, so a conversion makes it again.
            for (name, sql) in conventions.joinTableIndexes where name != join.indexName && Self.isIndex(sql, on: join.name) {
                fixed.joinTableIndexes[name] = sql
            }
        }
        self.conventions = fixed
    }

    /// Indexes as Core Data names them: each to-one column, `Z_ENT` of a tree, the second key of a
    /// join table, indexed attributes, uniqueness constraints (unique) and fetch indexes.
    package func indexStatements(model: Model) -> [String] {
        var statements: [String] = []
        for table in tables {
            if table.members.count > 1 { statements.append("CREATE INDEX \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)") }
            for column in table.columns {
                switch column.kind {
                case .toOne:
                    statements.append("CREATE INDEX \(table.name)_\(column.name)_INDEX ON \(table.name) (\(column.name))")
                case .attribute(let entity, let name) where model.entity(named: entity)?.attribute(named: name)?.isIndexed == true:
                    statements.append("CREATE INDEX \(table.name)_\(column.name)_INDEX ON \(table.name) (\(column.name))")
                default:
                    break
                }
            }
            for entityName in table.members {
                guard let entity = model.entity(named: entityName) else { continue }
                func column(_ property: String) -> String? {
                    table.columns.first { column in
                        switch column.kind {
                        case .attribute(_, let name), .toOne(_, let name):
                            name == property && self.owns(column, entity: entity, model: model)
                        default: false
                        }
                    }?.name
                }
                var uniqueColumns: Set<[String]> = []
                for constraint in entity.uniquenessConstraints {
                    let columns = constraint.compactMap(column)
                    guard columns.count == constraint.count else { continue }
                    uniqueColumns.insert(columns)
                    statements.append(
                        Self.uniqueIndexStatement(entity: entity.name, constraint: constraint, table: table.name, columns: columns))
                }
                for index in entity.indexes {
                    let columns = index.elements.compactMap { element in column(element.property) }
                    guard columns.count == index.elements.count, !columns.isEmpty else { continue }
                    // A fetch index on exactly a uniqueness constraint's columns would be a second copy of
                    // its unique index: reads use either, and building it costs as much again.
                    if uniqueColumns.contains(columns) { continue }
                    statements.append(
                        Self.indexStatement(
                            index, entity: entity.name, table: table.name, columns: columns, legacyNames: conventions.hasLegacyNames))
                }
            }
        }
        for join in joinTables {
            let (first, second) = (join.columns[0].name, join.columns[1].name)
            statements.append("CREATE INDEX \(join.indexName) ON \(join.name) (\(second), \(first))")
        }
        return statements + conventions.joinTableIndexes.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Whether `sql` creates an index on `table` (`ON "Z_25TRUSTEDBYCLIENTS" (`, quoted or not).
    private static func isIndex(_ sql: String, on table: String) -> Bool {
        sql.range(of: " ON \"\(table)\" (") != nil || sql.range(of: " ON \(table) (") != nil
    }

    /// Core Data's index for a fetch index of `entity`: `Z_<Entity>_<name>` over its columns with
    /// `COLLATE BINARY` and the direction (CoreDataPlus's 1044 store); an Xcode compound index is named
    /// after its properties (`Z_Conversation_internalIsArchived_lastModifiedDate`, Wire's 865 store),
    /// and before framework 752 after the table and columns with no collation
    /// (`ZCONVERSATION_ZINTERNALISARCHIVED_ZLASTMODIFIEDDATE`, Wire's 641 store).
    static func indexStatement(_ index: FetchIndex, entity: String, table: String, columns: [String], legacyNames: Bool) -> String {
        if index.isCompoundIndex, legacyNames {
            return "CREATE INDEX \(([table] + columns).joined(separator: "_")) ON \(table) (\(columns.joined(separator: ", ")))"
        }
        let name = index.isCompoundIndex ? index.elements.map(\.property).joined(separator: "_") : index.name
        let list = zip(columns, index.elements).map { column, element in "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
        }
        return "CREATE INDEX Z_\(entity)_\(name) ON \(table) (\(list.joined(separator: ", ")))"
    }

    /// Core Data's index for a uniqueness constraint of `entity`, over its columns in `table`.
    package static func uniqueIndexStatement(entity: String, constraint: [String], table: String, columns: [String]) -> String {
        "CREATE UNIQUE INDEX \(uniqueIndexName(entity: entity, constraint: constraint)) ON \(table) ("
            + columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ") + ")"
    }

    package static func uniqueIndexName(entity: String, constraint: [String]) -> String {
        "Z_\(entity)_UNIQUE_\(constraint.joined(separator: "_"))"
    }

    /// Whether a column belongs to `entity` or one of its ancestors.
    private func owns(_ column: Column, entity: Entity, model: Model) -> Bool {
        switch column.kind {
        case .attribute(let owner, _), .toOne(let owner, _): model.inheritanceChain(of: entity).contains { $0.name == owner }
        default: false
        }
    }
}
