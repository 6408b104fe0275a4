import SeedModel

/// The SQLite table of one entity: its columns, primary key, references and indexes.
package struct EntityTable: Sendable {
    /// How the table identifies its rows.
    package enum PrimaryKey: Sendable, Equatable {
        /// An `INTEGER PRIMARY KEY` column named ``Model/primaryKeyColumn``.
        case rowid
        /// `WITHOUT ROWID`, keyed by this attribute (the entity's single-attribute uniqueness constraint).
        case attribute(String)
    }

    package struct Column: Sendable {
        package enum Kind: Sendable {
            case primaryKey
            /// The entity of each row: ``Model/entityColumn`` (its name) of an inheritance tree in the
            /// plain layout, `Z_ENT` (its number) in Core Data's.
            case entity
            /// `Z_OPT`, the row's version, in Core Data's layout.
            case version
            case attribute(Attribute)
            /// A to-one relationship, holding the destination's primary key.
            case toOne(Relationship)
            /// Core Data's `Z<n>_<REL>`: the entity number of a to-one's destination inside a tree.
            case toOneEntity(Relationship)
            /// Core Data's `Z_FOK_<REL>`: the row's position in the inverse ordered to-many.
            case toOneOrder(Relationship)
            /// Core Data's `Z<n><REL>`: the source's key of a to-many without inverse, kept on the destination.
            case toManyWithoutInverse(entity: String, Relationship)
        }

        package let name: String
        package let kind: Kind
        /// `INTEGER`, `REAL`, `TEXT` or `BLOB`.
        package let type: String
        package let isNotNull: Bool
        /// The `DEFAULT` clause's literal, if any.
        package let defaultLiteral: String?
        /// The entity declaring the attribute or relationship (Core Data gives two entities of a
        /// tree that declare the same name a column each).
        package var owner: String?
    }

    package struct ForeignKey: Sendable, Equatable {
        package let column: String
        /// The destination's root entity.
        package let destination: String
    }

    /// The entity whose table this is; for an inheritance tree, its root with the properties of the whole tree.
    package let entity: Entity
    /// The entities whose rows the table holds: one, or an inheritance tree (the root first).
    package let members: [String]
    /// Entity of the tree → itself and its sub-entities at every depth: the rows a fetch of it reads.
    package let kinds: [String: [String]]
    package let primaryKey: PrimaryKey
    /// Columns in table order: the primary key first (the rowid column, or the key attribute of a
    /// `WITHOUT ROWID` table), the other attributes by name, then to-one columns by name.
    package let columns: [Column]
    package let foreignKeys: [ForeignKey]
    /// The SQL name of the table: the root entity's name, or Core Data's `Z<ROOT>`.
    package let name: String
    package let layout: StoreLayout
    /// Core Data's entity numbers (`Z_ENT`), over the whole model the store is stamped for.
    package let entityNumbers: [String: Int]
    /// The attribute values the table keeps in Core Data's forms rather than the runtime's.
    package let storedForms: StoredForms

    /// Whether the table holds an inheritance tree, its rows told apart by ``Model/entityColumn``.
    package var isTree: Bool { members.count > 1 }

    init(
        entity: Entity, members: [String] = [], kinds: [String: [String]] = [:], storage: RelationshipStorage, referenced: Bool,
        storedForms: StoredForms = []
    ) {
        self.entity = entity
        self.name = entity.name
        self.layout = .plain
        self.entityNumbers = [:]
        self.storedForms = storedForms
        self.members = members.isEmpty ? [entity.name] : members
        self.kinds = kinds
        if !referenced, let key = entity.singleAttributeKey {
            primaryKey = .attribute(key.name)
        } else {
            primaryKey = .rowid
        }
        var columns: [Column] = []
        if primaryKey == .rowid {
            columns.append(
                Column(name: Model.primaryKeyColumn, kind: .primaryKey, type: "INTEGER", isNotNull: true, defaultLiteral: nil, owner: nil))
        }
        if members.count > 1 {
            columns.append(Column(name: Model.entityColumn, kind: .entity, type: "TEXT", isNotNull: true, defaultLiteral: nil, owner: nil))
        }
        // A WITHOUT ROWID table keeps its key first: SQLite 3.40's quick_check and integrity_check
        // report a false "NULL value in" when the key comes after NOT NULL columns (docs/store-format.md).
        let key = primaryKey
        let keyFirst = entity.attributes.filter { key == .attribute($0.name) }
        for attribute in keyFirst + entity.attributes.filter({ key != .attribute($0.name) }) where attribute.isStored {
            columns.append(
                Column(
                    // A derived value is computed after the rows are in, so its column takes NULL until then.
                    name: attribute.name, kind: .attribute(attribute), type: Self.storageType(of: attribute.type),
                    isNotNull: !attribute.isOptional && attribute.derivation == nil,
                    defaultLiteral: Self.defaultLiteral(of: attribute, forms: storedForms),
                    owner: nil))
        }
        var foreignKeys: [ForeignKey] = []
        for relationship in entity.relationships where storage.place(of: relationship.name, in: entity.name) == .column {
            columns.append(
                Column(
                    name: relationship.name, kind: .toOne(relationship), type: "INTEGER",
                    isNotNull: !relationship.isOptional, defaultLiteral: nil, owner: nil))
            foreignKeys.append(ForeignKey(column: relationship.name, destination: relationship.destination))
        }
        self.columns = columns
        self.foreignKeys = foreignKeys
    }

    /// Lays out one of Core Data's tables: `entity` is the tree flattened into its root.
    init(coreData table: CoreDataSchema.Table, entity: Entity, kinds: [String: [String]], model: Model, entityNumbers: [String: Int]) {
        self.entity = entity
        self.name = table.name
        self.layout = .coreData
        self.entityNumbers = entityNumbers
        self.storedForms = .coreData
        self.members = table.members
        self.kinds = kinds
        primaryKey = .rowid
        func relationship(_ name: String) -> Relationship? { entity.relationship(named: name) }
        var columns: [Column] = []
        var foreignKeys: [ForeignKey] = []
        for column in table.columns {
            let kind: Column.Kind
            var owner: String?
            switch column.kind {
            case .primaryKey: kind = .primaryKey
            case .entity: kind = .entity
            case .version: kind = .version
            case .attribute(let declaring, let name):
                guard let attribute = entity.attribute(named: name) else { continue }
                kind = .attribute(attribute)
                owner = declaring
            case .toOne(let declaring, let name):
                guard let relationship = relationship(name) else { continue }
                kind = .toOne(relationship)
                owner = declaring
                foreignKeys.append(ForeignKey(column: column.name, destination: relationship.destination))
            case .toOneEntity(let declaring, let name):
                guard let relationship = relationship(name) else { continue }
                kind = .toOneEntity(relationship)
                owner = declaring
            case .toOneOrder(let declaring, let name):
                guard let relationship = relationship(name) else { continue }
                kind = .toOneOrder(relationship)
                owner = declaring
            case .toManyWithoutInverse(let source, let name):
                guard let relationship = model.entity(named: source).flatMap({ model.allRelationships(of: $0).first { $0.name == name } })
                else { continue }
                kind = .toManyWithoutInverse(entity: source, relationship)
                owner = source
            }
            var isNotNull = false
            if case .attribute(let attribute) = kind { isNotNull = !attribute.isOptional && attribute.derivation == nil }
            var defaultLiteral: String?
            if case .attribute(let attribute) = kind { defaultLiteral = Self.defaultLiteral(of: attribute, forms: .coreData) }
            columns.append(
                Column(name: column.name, kind: kind, type: column.type, isNotNull: isNotNull, defaultLiteral: defaultLiteral, owner: owner)
            )
        }
        self.columns = columns
        self.foreignKeys = foreignKeys
    }

    /// The entities a fetch of `entity` reads: it and its sub-entities; nil when that is every row of the table.
    package func entityFilter(for entity: String) -> [String]? {
        guard isTree, entity != members[0] else { return nil }
        return kinds[entity] ?? [entity]
    }

    /// The column that identifies a row: ``Model/primaryKeyColumn`` or the key attribute.
    package var keyColumn: String {
        switch primaryKey {
        case .rowid: Model.primaryKeyColumn
        case .attribute(let name): name
        }
    }

    package var createStatement: String {
        var definitions: [String] = columns.map { column in
            var text = "\(quoteIdentifier(column.name)) \(column.type)"
            if case .primaryKey = column.kind { text += " PRIMARY KEY" }
            if case .attribute(let attribute) = column.kind, primaryKey == .attribute(attribute.name) {
                text += " NOT NULL PRIMARY KEY"
            } else if column.isNotNull, case .attribute = column.kind {
                text += " NOT NULL"
            } else if column.isNotNull, case .toOne = column.kind {
                text += " NOT NULL"
            } else if case .entity = column.kind {
                text += " NOT NULL"
            }
            if let literal = column.defaultLiteral { text += " DEFAULT \(literal)" }
            return text
        }
        for key in foreignKeys {
            definitions.append(
                "FOREIGN KEY (\(quoteIdentifier(key.column))) REFERENCES \(quoteIdentifier(key.destination)) (\(quoteIdentifier(Model.primaryKeyColumn)))"
            )
        }
        let suffix = primaryKey == .rowid ? "" : " WITHOUT ROWID"
        return "CREATE TABLE \(quoteIdentifier(name)) (\n  \(definitions.joined(separator: ",\n  "))\n)\(suffix)"
    }

    /// Unique indexes for uniqueness constraints, indexes for fetch indexes, indexed attributes and to-one columns;
    /// none that would duplicate the primary key.
    package var indexStatements: [String] {
        var statements: [String] = []
        var covered: Set<[String]> = [[keyColumn]]
        func add(_ indexName: String, _ columns: [(String, Bool)], unique: Bool) {
            guard covered.insert(columns.map(\.0)).inserted else { return }
            let list = columns.map { quoteIdentifier($0.0) + ($0.1 ? "" : " DESC") }.joined(separator: ", ")
            statements.append(
                "CREATE \(unique ? "UNIQUE " : "")INDEX \(quoteIdentifier("\(name)_\(indexName)")) ON \(quoteIdentifier(name)) (\(list))")
        }
        for constraint in entity.uniquenessConstraints {
            add("unique_" + constraint.joined(separator: "_"), constraint.map { ($0, true) }, unique: true)
        }
        for index in entity.indexes {
            add(index.name, index.elements.map { ($0.property, $0.isAscending) }, unique: false)
        }
        for attribute in entity.attributes where attribute.isIndexed && attribute.isStored {
            add(attribute.name + "_index", [(attribute.name, true)], unique: false)
        }
        for key in foreignKeys {
            add(key.column + "_index", [(key.column, true)], unique: false)
        }
        if isTree { add("entity_index", [(Model.entityColumn, true)], unique: false) }
        return statements
    }

    /// The SQLite storage class for an attribute type.
    package static func storageType(of type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float, .date: "REAL"
        case .decimal, .string, .uuid, .uri: "TEXT"
        // Composite attributes are refused by StoreSchema and the others are never stored.
        case .binary, .transformable, .composite, .undefined, .objectID: "BLOB"
        }
    }

    static func defaultLiteral(of attribute: Attribute, forms: StoredForms) -> String? {
        guard let text = attribute.effectiveDefaultValue,
            case .success(let value) = FieldConverter.convertDefault(text, as: attribute.type)
        else { return nil }
        let stored = StoreValue(value, fieldText: text)
        return (forms.covers(attribute) ? CoreDataValues.encode(stored, for: attribute) : stored).sqlLiteral
    }
}
