import SeedModel

/// Builds the tables and join tables, making column names unique as Core Data does.
struct CoreDataTableLayout {
    let model: Model
    let numbers: [String: Int]
    var tables: [CoreDataSchema.Table] = []
    var joinTables: [CoreDataSchema.JoinTable] = []
    /// The store's own join-table names (``CoreDataConventions/joinTableNames``).
    let joinTableNames: [String: CoreDataConventions.JoinTableObject]
    /// Join column names already taken anywhere in the store.
    private var joinColumnNames = UniqueNames([])

    init(model: Model, numbers: [String: Int], joinTableNames: [String: CoreDataConventions.JoinTableObject]) {
        self.model = model
        self.numbers = numbers
        self.joinTableNames = joinTableNames
    }

    /// The groups Core Data lays a table's columns out in, entity by entity of the tree, as its stores
    /// have them (the oracles' column order is checked exactly): whole numbers (then to-one keys, and
    /// the order keys after every entity's), dates and reals together by name, decimals, text, UUIDs,
    /// transformed values, other bytes.
    private static func group(of type: AttributeType) -> Int {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: 0
        case .date, .double, .float: 1
        case .decimal: 2
        case .string, .uri: 3
        case .uuid: 4
        case .transformable: 5
        case .binary, .composite, .undefined, .objectID: 6
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
        var orderColumns: [(column: CoreDataSchema.Column, owner: Int, inverse: String)] = []
        for group in 0...6 {
            for entity in tree {
                for attribute in entity.attributes where attribute.isStored && Self.group(of: attribute.type) == group {
                    let type = Self.sqlType(attribute.type)
                    columns.append(
                        .init(
                            name: unique("Z" + attribute.name.uppercased()), type: type,
                            kind: .attribute(entity: entity.name, name: attribute.name)))
                }
                guard group == 0 else { continue }
                for relationship in entity.relationships where !relationship.isTransient && !relationship.isToMany {
                    let base = relationship.name.uppercased()
                    columns.append(
                        .init(name: unique("Z" + base), type: "INTEGER", kind: .toOne(entity: entity.name, name: relationship.name)))
                    if let destination = model.entity(named: relationship.destination), !model.subentities(of: destination).isEmpty {
                        let number = numbers[destination.name] ?? 0
                        columns.append(
                            .init(
                                name: unique("Z\(number)_" + base), type: "INTEGER",
                                kind: .toOneEntity(entity: entity.name, name: relationship.name)))
                    }
                    if let inverse = inverse(of: relationship), inverse.isToMany, inverse.isOrdered {
                        let column = CoreDataSchema.Column(
                            name: "Z_FOK_" + base, type: "INTEGER", kind: .toOneOrder(entity: entity.name, name: relationship.name))
                        let owner = declaringEntity(of: inverse, in: relationship.destination).flatMap { numbers[$0] } ?? 0
                        orderColumns.append((column, owner, inverse.name))
                    }
                }
                // A to-many without inverse pointing into this tree keeps its links here.
                for source in model.entitiesInTreeOrder {
                    for relationship in source.relationships
                    where relationship.isToMany && !relationship.isTransient && relationship.inverse == nil
                        && relationship.destination == entity.name
                    {
                        let number = numbers[source.name] ?? 0
                        columns.append(
                            .init(
                                name: unique("Z\(number)" + relationship.name.uppercased()), type: "INTEGER",
                                kind: .toManyWithoutInverse(entity: source.name, name: relationship.name)))
                    }
                }
            }
            // The order columns follow the whole tree's whole numbers, by the entity number of the side
            // that is ordered, then — as Wire's Message has Z_FOK_VISIBLEINCONVERSATION (inverse
            // `messages`) before Z_FOK_HIDDENINCONVERSATION (`hiddenMessages`) — that side's name descending.
            if group == 0 {
                let sorted = orderColumns.sorted { ($0.owner, $1.inverse) < ($1.owner, $0.inverse) }
                columns += sorted.map { item in
                    CoreDataSchema.Column(name: unique(item.column.name), type: item.column.type, kind: item.column.kind)
                }
            }
        }
        tables.append(
            CoreDataSchema.Table(name: "Z" + root.name.uppercased(), root: root.name, members: tree.map(\.name), columns: columns))
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
                var view: String?
                if numberA == numberB {
                    // A relationship that is its own inverse has no layout known from Apple's stores.
                    guard inverse.name != relationship.name else { continue }
                    let naming = selfReferentialName(relationship.name, inverse.name, number: numberA)
                    guard naming.relationship == relationship.name else { continue }
                    view = naming.view
                } else if numberA > numberB {
                    continue
                }
                let upperA = relationship.name.uppercased()
                let upperB = inverse.name.uppercased()
                var columns: [CoreDataSchema.Column] = [
                    .init(
                        name: joinColumn("Z_\(numberA)\(upperB)"), type: "INTEGER", kind: .toOne(entity: destination, name: inverse.name)),
                    .init(
                        name: joinColumn("Z_\(numberB)\(upperA)"), type: "INTEGER",
                        kind: .toOne(entity: entity.name, name: relationship.name)),
                ]
                if inverse.isOrdered {
                    columns.append(
                        .init(
                            name: "Z_FOK_\(numberA)\(upperB)", type: "INTEGER", kind: .toOneOrder(entity: destination, name: inverse.name)))
                }
                if relationship.isOrdered {
                    columns.append(
                        .init(
                            name: "Z_FOK_\(numberB)\(upperA)", type: "INTEGER",
                            kind: .toOneOrder(entity: entity.name, name: relationship.name)))
                }
                joinTables.append(
                    CoreDataSchema.JoinTable(
                        name: "Z_\(numberA)\(upperA)", columns: columns,
                        relationship: (entity.name, relationship.name), inverse: (destination, inverse.name), alsoReadableAs: view))
            }
        }
    }

    /// Which relationship of a self-referential pair names its join table, and the view's name when
    /// the name is not certain. Both sides have one entity number, and no rule found explains which
    /// name Core Data takes (`docs/store-format.md`, "Self-referential join tables"): a store keeps
    /// the table it has (and its view, if it has one); a new one is named after the relationship
    /// whose name sorts last — right in most stores Apple wrote — and gets a view under the other.
    private func selfReferentialName(_ one: String, _ other: String, number: Int) -> (relationship: String, view: String?) {
        let (first, last) = one < other ? (one, other) : (other, one)
        func name(_ relationship: String) -> String { "Z_\(number)\(relationship.uppercased())" }
        for (named, alternative) in [(last, first), (first, last)] where joinTableNames[name(named)] == .table {
            return (named, joinTableNames[name(alternative)] == .view ? name(alternative) : nil)
        }
        return (last, name(first))
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
