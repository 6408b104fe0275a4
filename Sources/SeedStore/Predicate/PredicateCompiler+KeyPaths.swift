import SeedModel

/// Key paths: naming each step, joining through to-one relationships, and opening the rows of a
/// to-many relationship for a subquery. Every table and column name comes from the schema's
/// accessors (`EntityTable+Names.swift`), never from a property's name directly.
extension PredicateCompiler {
    /// One name of a key path, resolved against the table the path has reached.
    enum Step {
        case attribute(Attribute, in: EntityTable)
        case toOne(Relationship, from: EntityTable, to: EntityTable)
        case toMany(Relationship, from: EntityTable, to: EntityTable)
        /// `@count`, `@sum`, `@avg`, `@min` or `@max`.
        case aggregate(String)

        var isToMany: Bool { if case .toMany = self { true } else { false } }
        var isAggregate: Bool { if case .aggregate = self { true } else { false } }
        var isAttribute: Bool { if case .attribute = self { true } else { false } }
    }

    static let aggregates: Set<String> = ["@count", "@sum", "@avg", "@min", "@max"]

    /// Names each step of a key path from a table, checking every name.
    func steps(_ path: [String], from table: EntityTable) throws(FetchPredicateError) -> [Step] {
        var current: EntityTable? = table
        var result: [Step] = []
        for (offset, name) in path.enumerated() {
            if Self.aggregates.contains(name.lowercased()) {
                result.append(.aggregate(name.lowercased()))
                continue
            }
            guard let table = current else {
                throw error("\(path[..<offset].joined(separator: ".")) is an attribute; a key path can only go on through a relationship")
            }
            if let attribute = table.entity.attribute(named: name) {
                guard !attribute.isTransient else {
                    throw error("\(table.entity.name).\(name) is transient and not stored; it cannot be used in a fetch")
                }
                result.append(.attribute(attribute, in: table))
                current = nil
                continue
            }
            // Looked up in the model, not the layout: a transient relationship to another store's entity has no place in this store's.
            if let owner = table.members.first(where: { schema.model.entity(named: $0)?.relationship(named: name)?.isTransient == true }) {
                throw error("\(owner).\(name) is a transient relationship and not stored; it cannot be used in a fetch")
            }
            guard let relationship = table.entity.relationship(named: name) else {
                let known = table.entity.attributes.map(\.name) + table.entity.relationships.map(\.name)
                throw error(
                    "\(table.entity.name) has no attribute or relationship named \"\(name)\"; it has \(known.joined(separator: ", "))")
            }
            guard let destination = schema.table(for: relationship.destination) else {
                throw error("\(table.entity.name).\(name) leads to \(relationship.destination), which is not in this store")
            }
            result.append(
                relationship.isToMany
                    ? .toMany(relationship, from: table, to: destination) : .toOne(relationship, from: table, to: destination))
            current = destination
        }
        return result
    }

    /// Where an operand's key path starts and the path itself: from the root for a key path, from
    /// the element for a bound variable; nil for values and lists.
    func base(of expression: FetchPredicate.Expression) -> (place: Place, path: [String])? {
        switch expression {
        case .keyPath(let path): return (root, path)
        case .evaluatedObject: return (root, [])
        case .variable(let name, let path): return bindings[name].map { ($0, path) }
        default: return nil
        }
    }

    /// Whether an operand stands for many values: a key path through a to-many, without an aggregate.
    func isCollection(_ expression: FetchPredicate.Expression) throws(FetchPredicateError) -> Bool {
        guard let (place, path) = base(of: expression), !path.isEmpty else { return false }
        let steps = try steps(path, from: place.table)
        return steps.contains(where: \.isToMany) && !steps.contains(where: \.isAggregate)
    }

    /// The stored column a single-valued key path ends at, if it ends at an attribute.
    func storedColumn(of expression: FetchPredicate.Expression) throws(FetchPredicateError) -> EntityTable.Column? {
        guard let (place, path) = base(of: expression), !path.isEmpty else { return nil }
        let steps = try steps(path, from: place.table)
        guard case .attribute(let attribute, let table)? = steps.last,
            !steps.contains(where: { $0.isToMany || $0.isAggregate }),
            let name = table.column(forAttribute: attribute.name)
        else { return nil }
        return table.columns.first { $0.name == name }
    }

    func attribute(of expression: FetchPredicate.Expression) throws(FetchPredicateError) -> Attribute? {
        guard let column = try storedColumn(of: expression), case .attribute(let attribute) = column.kind else { return nil }
        return attribute
    }

    /// The table of the objects an operand stands for: `SELF`, an element, or a relationship's destination.
    func objectTable(of expression: FetchPredicate.Expression) throws(FetchPredicateError) -> EntityTable? {
        guard let (place, path) = base(of: expression) else { return nil }
        if path.isEmpty { return place.table }
        switch try steps(path, from: place.table).last {
        case .toOne(_, _, let destination)?, .toMany(_, _, let destination)?: return destination
        default: return nil
        }
    }

    /// The SQL of a single value at a key path from a row, joining through to-one relationships.
    mutating func value(at path: [String], from place: Place) throws(FetchPredicateError) -> String {
        let steps = try steps(path, from: place.table)
        if steps.contains(where: \.isAggregate) { return try aggregate(path, steps: steps, from: place) }
        if steps.contains(where: \.isToMany) {
            throw error(
                "\(FetchPredicate.Expression.format(path)) goes through a to-many relationship and stands for many values; compare it with ANY, ALL or NONE, or count it with .@count"
            )
        }
        var current = place
        for (offset, step) in steps.enumerated() {
            let isLast = offset == steps.count - 1
            switch step {
            case .attribute(let attribute, let table):
                guard let column = table.column(forAttribute: attribute.name) else {
                    throw error("\(table.entity.name).\(attribute.name) is not stored in the table; it cannot be used in a fetch")
                }
                return "\(current.alias).\(quoteIdentifier(column))"
            case .toOne(let relationship, let table, let destination):
                if isLast, let column = table.column(forToOne: relationship.name) {
                    return "\(current.alias).\(quoteIdentifier(column))"
                }
                current = try joinToOne(relationship, from: current, to: destination, name: Array(path[...offset]))
                if isLast { return "\(current.alias).\(quoteIdentifier(destination.keyColumn))" }
            case .toMany, .aggregate:
                preconditionFailure("handled above")
            }
        }
        throw error("empty key path")
    }

    /// Adds a `LEFT JOIN` to the destination of a to-one relationship, once per key path.
    mutating func joinToOne(_ relationship: Relationship, from place: Place, to destination: EntityTable, name: [String])
        throws(FetchPredicateError) -> Place
    {
        // The alias is named after the key path, so a sort key and the predicate share one join.
        let aliasName = (place.alias == "t0" ? "j." : place.alias + ".j.") + name.joined(separator: ".")
        let alias = quoteIdentifier(aliasName)
        let link = try toOneLink(relationship, from: place, to: Place(alias: alias, table: destination))
        addJoin("LEFT JOIN \(quoteIdentifier(destination.name)) AS \(alias) ON \(link)")
        return Place(alias: alias, table: destination)
    }

    /// The condition joining a to-one's destination row: its key equals this side's column, or its
    /// column of the inverse equals this side's key (a one-to-one stored on the other side).
    func toOneLink(_ relationship: Relationship, from place: Place, to destination: Place) throws(FetchPredicateError) -> String {
        if let column = place.table.column(forToOne: relationship.name) {
            return "\(destination.alias).\(quoteIdentifier(destination.table.keyColumn)) = \(place.alias).\(quoteIdentifier(column))"
        }
        if let inverse = relationship.inverse, let column = destination.table.column(forToOne: inverse) {
            return "\(destination.alias).\(quoteIdentifier(column)) = \(place.alias).\(quoteIdentifier(place.table.keyColumn))"
        }
        throw error("\(place.table.entity.name).\(relationship.name) is not stored as a to-one column on either side")
    }

    mutating func addJoin(_ join: String) {
        if innerJoins.isEmpty {
            if !joins.contains(join) { joins.append(join) }
        } else if !innerJoins[innerJoins.count - 1].contains(join) {
            innerJoins[innerJoins.count - 1].append(join)
        }
    }

    /// The rows of a to-many key path, for a correlated subquery: `FROM` and its conditions (the
    /// link to the outer row first, then any entity filter), binding their values now, as they come
    /// before the subquery's own condition in the SQL.
    struct Scope {
        var from: String
        var conditions: [String]
        var element: Place
        /// Whether the path goes on after its first to-many, so one element may be reached more
        /// than once (`products.tags.products`); key-value coding collects the distinct elements.
        var isFlattened: Bool
    }

    /// Opens the rows at the end of `steps` (which end at a to-many relationship).
    mutating func openScope(_ path: [String], steps: [Step], from place: Place) throws(FetchPredicateError) -> Scope {
        var current = place
        var tables: [String] = []
        var conditions: [String] = []
        var filters: [(alias: String, column: String, values: [StoreValue])] = []
        for (offset, step) in steps.enumerated() {
            switch step {
            case .toOne(let relationship, _, let destination) where tables.isEmpty:
                current = try joinToOne(relationship, from: current, to: destination, name: Array(path[...offset]))
            case .toOne(let relationship, _, let destination):
                let next = Place(alias: newAlias(), table: destination)
                tables.append(
                    "JOIN \(quoteIdentifier(destination.name)) AS \(next.alias) ON \(try toOneLink(relationship, from: current, to: next))")
                current = next
            case .toMany(let relationship, let table, let destination):
                let hop = try toManyHop(relationship, from: current, in: table, to: destination)
                for item in hop.items {
                    if tables.isEmpty {
                        tables.append(item.table)
                        conditions.append(item.link)
                    } else {
                        tables.append("JOIN \(item.table) ON \(item.link)")
                    }
                }
                current = hop.element
                if let restriction = destinationKinds(of: relationship, in: table, to: destination) {
                    filters.append((current.alias, restriction.column, restriction.values))
                }
            case .attribute, .aggregate:
                preconditionFailure("a scope ends at its last to-many relationship")
            }
        }
        for filter in filters {
            conditions.append(
                "\(filter.alias).\(quoteIdentifier(filter.column)) IN (\(Array(repeating: "?", count: filter.values.count).joined(separator: ", ")))"
            )
            arguments += filter.values
        }
        let firstToMany = steps.firstIndex(where: \.isToMany) ?? steps.count
        return Scope(
            from: tables.joined(separator: " "), conditions: conditions, element: current, isFlattened: firstToMany < steps.count - 1)
    }

    /// The tables one to-many hop reads, each `"Table" AS alias` with the condition linking it to
    /// the row before: the destination's foreign-key column, or the join table then the destination.
    private mutating func toManyHop(
        _ relationship: Relationship, from place: Place, in table: EntityTable, to destination: EntityTable
    ) throws(FetchPredicateError) -> (items: [(table: String, link: String)], element: Place) {
        let alias = newAlias()
        let element = Place(alias: alias, table: destination)
        let here = "\(place.alias).\(quoteIdentifier(table.keyColumn))"
        let there = "\(alias).\(quoteIdentifier(destination.keyColumn))"
        let target = "\(quoteIdentifier(destination.name)) AS \(alias)"
        switch schema.storage.place(of: relationship.name, in: table.entity.name) {
        case .foreignColumn(let column):
            // Core Data's to-many without inverse: the destination's column holds the source's key.
            return ([(target, "\(alias).\(quoteIdentifier(column)) = \(here)")], element)
        case .joinTable(let join):
            let link = quoteIdentifier(alias + "j")
            return (
                [
                    ("\(quoteIdentifier(join.name)) AS \(link)", "\(link).\(quoteIdentifier(join.sourceColumn)) = \(here)"),
                    (target, "\(there) = \(link).\(quoteIdentifier(join.destinationColumn))"),
                ], element
            )
        case .inverse, .column:
            if let inverse = relationship.inverse, let column = destination.column(forToOne: inverse) {
                return ([(target, "\(alias).\(quoteIdentifier(column)) = \(here)")], element)
            }
            if let inverse = relationship.inverse,
                let join = schema.joinTables.first(where: { $0.sourceEntity == destination.entity.name && $0.relationship == inverse })
            {
                let link = quoteIdentifier(alias + "j")
                return (
                    [
                        ("\(quoteIdentifier(join.name)) AS \(link)", "\(link).\(quoteIdentifier(join.destinationColumn)) = \(here)"),
                        (target, "\(there) = \(link).\(quoteIdentifier(join.sourceColumn))"),
                    ], element
                )
            }
            throw error("\(table.entity.name).\(relationship.name) has no stored inverse column or join table in this store")
        }
    }

    /// The entity-column values that restrict a to-many to its declared destination, when that is
    /// an entity of an inheritance tree other than the root (the tree shares one table).
    private func destinationKinds(
        of relationship: Relationship, in table: EntityTable, to destination: EntityTable
    ) -> (column: String, values: [StoreValue])? {
        guard destination.isTree else { return nil }
        let declared = table.members.lazy.compactMap { schema.model.entity(named: $0)?.relationship(named: relationship.name) }.first
        return declared.flatMap { destination.entityRestriction(for: $0.destination) }
    }

    mutating func newAlias() -> String {
        defer { nextAlias += 1 }
        return "t\(nextAlias)"
    }
}
