import SeedModel

/// Core Data's SQLite layout of a model, as Apple's framework creates it (`shared/coredata/FORMAT.md`
/// §3): entity numbers, one `Z`-prefixed table per root entity with `Z_PK`, `Z_ENT` and `Z_OPT`,
/// columns named and typed as Core Data names and types them, many-to-many join tables and
/// `Z_PRIMARYKEY`'s rows. Checked against stores Apple's code wrote.
///
/// ```swift
/// let layout = try CoreDataSchema(model: mergedModel, configuration: "PostCodesConf")
/// for statement in layout.createTableStatements { try db.execute(sql: statement) }
/// ```
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

        /// `CREATE TABLE` as Core Data writes it, keyed by the two key columns.
        package var createStatement: String {
            let keys = columns.prefix(2).map(\.name)
            return "CREATE TABLE \(name) ( " + columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
                + ", PRIMARY KEY (\(keys.joined(separator: ", "))) )"
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
    /// One row per entity of the whole model, in entity-number order (Core Data compares every entity).
    package let primaryKeyRows: [PrimaryKeyRow]
    /// Self-referential many-to-many pairs, whose join table Core Data versions name differently.
    package let selfReferentialManyToMany: [(entity: String, name: String)]

    /// The fixed tables, with Core Data's exact DDL.
    package static let fixedTableStatements = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// Lays out the entities of one configuration of `model`, the model the store is stamped for.
    /// - Parameter storedNumbers: the entity numbers of an existing store's `Z_PRIMARYKEY`, which
    ///   win over the model's order for the entities they name.
    package init(model: Model, configuration name: String, storedNumbers: [String: Int] = [:]) throws(ModelError) {
        guard let configuration = model.configuration(named: name) else {
            throw .invalid(
                "no configuration named \"\(name)\"; the model has \(model.configurationNames.joined(separator: ", "))", source: model.source)
        }
        let ordered = model.entitiesInTreeOrder
        var numbers: [String: Int] = [:]
        for (index, entity) in ordered.enumerated() { numbers[entity.name] = storedNumbers[entity.name] ?? index + 1 }
        entityNumbers = numbers
        primaryKeyRows = ordered.map { entity in
            PrimaryKeyRow(entity: numbers[entity.name]!, name: entity.name, superEntity: entity.parentEntity.flatMap { numbers[$0] } ?? 0)
        }
        let members = Set(configuration.entities)
        var layout = Layout(model: model, numbers: numbers)
        for root in ordered where model.superentity(of: root) == nil && members.contains(root.name) {
            layout.addTable(root: root)
        }
        layout.addJoinTables(members: members)
        tables = layout.tables
        joinTables = layout.joinTables
        selfReferentialManyToMany = layout.selfReferential
    }

    /// The table holding an entity's rows.
    package func table(for entity: String) -> Table? {
        tables.first { $0.members.contains(entity) }
    }

    /// `CREATE TABLE` statements as Core Data writes them, fixed tables first.
    package var createTableStatements: [String] {
        Self.fixedTableStatements
            + tables.map { table in
                "CREATE TABLE \(table.name) ( Z_PK INTEGER PRIMARY KEY, "
                    + table.columns.filter { $0.kind != .primaryKey }.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + " )"
            }
            + joinTables.map(\.createStatement)
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
                        case .attribute(_, let name), .toOne(_, let name): name == property && self.owns(column, entity: entity, model: model)
                        default: false
                        }
                    }?.name
                }
                var uniqueColumns: Set<[String]> = []
                for constraint in entity.uniquenessConstraints {
                    let columns = constraint.compactMap(column)
                    guard columns.count == constraint.count else { continue }
                    uniqueColumns.insert(columns)
                    statements.append(Self.uniqueIndexStatement(entity: entity.name, constraint: constraint, table: table.name, columns: columns))
                }
                for index in entity.indexes {
                    let columns = index.elements.compactMap { element in column(element.property).map { $0 + (element.isAscending ? "" : " DESC") } }
                    guard columns.count == index.elements.count, !columns.isEmpty else { continue }
                    // A fetch index on exactly a uniqueness constraint's columns would be a second copy of
                    // its unique index: reads use either, and building it costs as much again.
                    if uniqueColumns.contains(columns) { continue }
                    statements.append("CREATE INDEX Z_\(entity.name)_\(index.name) ON \(table.name) (\(columns.joined(separator: ", ")))")
                }
            }
        }
        for join in joinTables {
            let (first, second) = (join.columns[0].name, join.columns[1].name)
            statements.append("CREATE INDEX \(join.name)_\(second)_INDEX ON \(join.name) (\(second), \(first))")
        }
        return statements
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

/// Builds the tables and join tables, making column names unique as Core Data does.
private struct Layout {
    let model: Model
    let numbers: [String: Int]
    var tables: [CoreDataSchema.Table] = []
    var joinTables: [CoreDataSchema.JoinTable] = []
    var selfReferential: [(entity: String, name: String)] = []
    /// Join column names already taken anywhere in the store.
    private var joinColumnNames = UniqueNames([])

    init(model: Model, numbers: [String: Int]) {
        self.model = model
        self.numbers = numbers
    }

    /// The groups Core Data lays a table's columns out in, as seen in its stores: whole numbers (then
    /// to-one keys), dates and reals together by name, text, transformed values, other bytes.
    private static func group(of type: AttributeType) -> Int {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: 0
        case .date, .double, .float, .decimal: 1
        case .string, .uri: 2
        case .transformable: 3
        case .binary, .uuid, .composite, .undefined, .objectID: 4
        }
    }

    static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .date: "TIMESTAMP"
        case .string, .uri: "VARCHAR"
        case .binary, .transformable, .uuid, .composite, .undefined, .objectID: "BLOB"
        }
    }

    mutating func addTable(root: Entity) {
        let tree = [root] + model.descendants(of: root)
        var taken = UniqueNames(["Z_PK", "Z_ENT", "Z_OPT"])
        func unique(_ base: String) -> String { taken.claim(base) }
        var columns: [CoreDataSchema.Column] = [
            .init(name: "Z_PK", type: "INTEGER", kind: .primaryKey),
            .init(name: "Z_ENT", type: "INTEGER", kind: .entity),
            .init(name: "Z_OPT", type: "INTEGER", kind: .version),
        ]
        var orderColumns: [CoreDataSchema.Column] = []
        for group in 0...4 {
            for entity in tree {
                for attribute in entity.attributes where attribute.isStored && Self.group(of: attribute.type) == group {
                    let type = Self.sqlType(attribute.type)
                    columns.append(.init(name: unique("Z" + attribute.name.uppercased()), type: type, kind: .attribute(entity: entity.name, name: attribute.name)))
                }
                guard group == 0 else { continue }
                for relationship in entity.relationships where !relationship.isTransient && !relationship.isToMany {
                    let base = relationship.name.uppercased()
                    columns.append(.init(name: unique("Z" + base), type: "INTEGER", kind: .toOne(entity: entity.name, name: relationship.name)))
                    if let destination = model.entity(named: relationship.destination), !model.subentities(of: destination).isEmpty {
                        let number = numbers[destination.name] ?? 0
                        columns.append(.init(name: unique("Z\(number)_" + base), type: "INTEGER", kind: .toOneEntity(entity: entity.name, name: relationship.name)))
                    }
                    if let inverse = inverse(of: relationship), inverse.isToMany, inverse.isOrdered {
                        orderColumns.append(.init(name: unique("Z_FOK_" + base), type: "INTEGER", kind: .toOneOrder(entity: entity.name, name: relationship.name)))
                    }
                }
                // A to-many without inverse pointing into this tree keeps its links here.
                for source in model.entitiesInTreeOrder {
                    for relationship in source.relationships
                    where relationship.isToMany && !relationship.isTransient && relationship.inverse == nil && relationship.destination == entity.name {
                        let number = numbers[source.name] ?? 0
                        columns.append(.init(
                            name: unique("Z\(number)" + relationship.name.uppercased()), type: "INTEGER",
                            kind: .toManyWithoutInverse(entity: source.name, name: relationship.name)))
                    }
                }
            }
            if group == 0 { columns += orderColumns }
        }
        tables.append(CoreDataSchema.Table(name: "Z" + root.name.uppercased(), root: root.name, members: tree.map(\.name), columns: columns))
    }

    /// Many-to-many pairs among the stored entities, each once, from the side with the lower entity number.
    mutating func addJoinTables(members: Set<String>) {
        // In entity-name order, which decides which of two equal join column names gets the suffix.
        for entity in model.entities where members.contains(entity.name) {
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                guard let inverse = inverse(of: relationship), inverse.isToMany,
                    let destination = declaringEntity(of: inverse, in: relationship.destination),
                    let numberA = numbers[entity.name], let numberB = numbers[destination]
                else { continue }
                if destination == entity.name && inverse.name != relationship.name || numberA == numberB {
                    if relationship.name < inverse.name { selfReferential.append((entity.name, relationship.name)) }
                    continue
                }
                guard numberA < numberB else { continue }
                let upperA = relationship.name.uppercased()
                let upperB = inverse.name.uppercased()
                var columns: [CoreDataSchema.Column] = [
                    .init(name: joinColumn("Z_\(numberA)\(upperB)"), type: "INTEGER", kind: .toOne(entity: destination, name: inverse.name)),
                    .init(name: joinColumn("Z_\(numberB)\(upperA)"), type: "INTEGER", kind: .toOne(entity: entity.name, name: relationship.name)),
                ]
                if inverse.isOrdered {
                    columns.append(.init(name: "Z_FOK_\(numberA)\(upperB)", type: "INTEGER", kind: .toOneOrder(entity: destination, name: inverse.name)))
                }
                if relationship.isOrdered {
                    columns.append(.init(name: "Z_FOK_\(numberB)\(upperA)", type: "INTEGER", kind: .toOneOrder(entity: entity.name, name: relationship.name)))
                }
                joinTables.append(CoreDataSchema.JoinTable(
                    name: "Z_\(numberA)\(upperA)", columns: columns,
                    relationship: (entity.name, relationship.name), inverse: (destination, inverse.name)))
            }
        }
    }

    private mutating func joinColumn(_ base: String) -> String { joinColumnNames.claim(base) }

    private func inverse(of relationship: Relationship) -> Relationship? {
        guard let name = relationship.inverse, let destination = model.entity(named: relationship.destination) else { return nil }
        return model.allRelationships(of: destination).first { $0.name == name }
    }

    /// The entity that declares a relationship found on `entity` (itself or an ancestor).
    private func declaringEntity(of relationship: Relationship, in entity: String) -> String? {
        guard let start = model.entity(named: entity) else { return nil }
        return model.inheritanceChain(of: start).last { $0.relationships.contains { $0.name == relationship.name } }?.name
    }
}

/// Names made unique as Core Data makes them: a name already taken gets `1`, `2`, … appended (`ZTEXT1`).
private struct UniqueNames {
    private var taken: Set<String>

    init(_ taken: Set<String>) {
        self.taken = taken
    }

    mutating func claim(_ base: String) -> String {
        var name = base
        var suffix = 1
        while taken.contains(name) {
            name = base + String(suffix)
            suffix += 1
        }
        taken.insert(name)
        return name
    }
}
