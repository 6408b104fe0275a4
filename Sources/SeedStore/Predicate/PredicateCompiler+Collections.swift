import SeedModel

/// To-many forms: `ANY`/`ALL`/`NONE`, membership (`x IN items.name`, `items CONTAINS %@`),
/// aggregates (`items.@count`, `items.@sum.price`), `SUBQUERY(…).@count`, and managed objects.
extension PredicateCompiler {
    /// `ANY`, `ALL` or `NONE` over the elements a comparison's left key path reaches through its
    /// to-many relationships, as a correlated `EXISTS`.
    mutating func quantified(_ quantifier: FetchPredicate.Quantifier, _ predicate: FetchPredicate) throws(FetchPredicateError) -> String {
        let lhs: FetchPredicate.Expression
        let rebuild: (FetchPredicate.Expression) -> FetchPredicate
        switch predicate {
        case .comparison(let left, let op, let right, let options):
            lhs = left
            rebuild = { .comparison($0, op, right, options) }
        case .between(let value, let lower, let upper):
            lhs = value
            rebuild = { .between($0, lower: lower, upper: upper) }
        default:
            throw error("\(quantifier.rawValue) goes before a comparison, as in \(quantifier.rawValue) items.price > 5")
        }
        guard let (place, path) = base(of: lhs), try isCollection(lhs) else {
            throw error(
                "\(quantifier.rawValue) needs a key path through a to-many relationship on its left, as in \(quantifier.rawValue) items.price > 5; \(lhs) is not one"
            )
        }
        let steps = try steps(path, from: place.table)
        let last = steps.lastIndex(where: \.isToMany)!
        let scope = try openScope(Array(path[...last]), steps: Array(steps[...last]), from: place)
        let variable = "\u{1}" + scope.element.alias
        bindings[variable] = scope.element
        innerJoins.append([])
        let condition = try compile(rebuild(.variable(variable, keyPath: Array(path[(last + 1)...]))))
        let from = ([scope.from] + innerJoins.removeLast()).joined(separator: " ")
        bindings[variable] = nil
        let link = scope.conditions.joined(separator: " AND ")
        switch quantifier {
        case .any: return "EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND \(condition))"
        case .all: return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND NOT coalesce(\(condition), 0))"
        case .none: return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND \(condition))"
        }
    }

    /// `x IN items.name` and `items CONTAINS %@`: whether a collection holds a value or object.
    mutating func membership(
        _ lhs: FetchPredicate.Expression, _ op: FetchPredicate.ComparisonOperator, _ rhs: FetchPredicate.Expression,
        _ options: FetchPredicate.StringOptions
    ) throws(FetchPredicateError) -> String? {
        if op == .in, try isCollection(rhs) {
            return try quantified(.any, .comparison(rhs, .equal, lhs, options))
        }
        // CONTAINS on a to-many of objects asks for membership; on its attribute, each string is searched.
        if op == .contains, try isCollection(lhs), let (place, path) = base(of: lhs),
            try steps(path, from: place.table).last?.isAttribute == false
        {
            return try quantified(.any, .comparison(lhs, .equal, rhs, options))
        }
        return nil
    }

    /// `items.@count`, `items.name.@count` (distinct non-nil values), `items.@sum.price`,
    /// `@avg`, `@min`, `@max` as a scalar subquery. `@sum` and `@avg` count nil as 0, as
    /// key-value coding does; `@min` and `@max` skip nil; an empty collection sums to 0 and has
    /// no average, minimum or maximum (nil). `items.price.@sum` reads the distinct non-nil values.
    mutating func aggregate(_ path: [String], steps: [Step], from place: Place) throws(FetchPredicateError) -> String {
        let positions = steps.indices.filter { steps[$0].isAggregate }
        guard positions.count == 1, case .aggregate(let name) = steps[positions[0]] else {
            throw error("\(FetchPredicate.Expression.format(path)) has more than one aggregate; use one of @count, @sum, @avg, @min, @max")
        }
        var restPath = path
        restPath.remove(at: positions[0])
        var rest = steps
        rest.remove(at: positions[0])
        guard let last = rest.lastIndex(where: \.isToMany) else {
            throw error(
                "\(name) needs a key path through a to-many relationship, as in items.\(name == "@count" ? "@count" : name + ".price"); \(FetchPredicate.Expression.format(path)) has none"
            )
        }
        let tail = Array(restPath[(last + 1)...])
        if name == "@count" {
            guard positions[0] == steps.count - 1 else {
                throw error("@count ends a key path, as in items.@count or items.name.@count")
            }
        } else if tail.isEmpty || !(rest.last?.isAttribute ?? false) {
            throw error("\(name) needs an attribute of the elements after it, as in items.\(name).price")
        }
        let scope = try openScope(Array(restPath[...last]), steps: Array(rest[...last]), from: place)
        innerJoins.append([])
        var column = "*"
        if !tail.isEmpty {
            let variable = "\u{1}" + scope.element.alias
            bindings[variable] = scope.element
            column = try numeric(.variable(variable, keyPath: tail))
            bindings[variable] = nil
        }
        let from = ([scope.from] + innerJoins.removeLast()).joined(separator: " ")
        // After the attribute (`items.price.@sum`) the aggregate reads the set of its distinct
        // values, as key-value coding collects them from a set; before it (`items.@sum.price`), every element.
        let overValues = positions[0] == steps.count - 1 && !tail.isEmpty
        var source = "FROM \(from) WHERE \(scope.conditions.joined(separator: " AND "))"
        var value = column
        if scope.isFlattened, !overValues {
            // Each element once, though several paths reach it.
            let key = "\(scope.element.alias).\(quoteIdentifier(scope.element.table.keyColumn))"
            if tail.isEmpty {
                value = key
            } else {
                source = "FROM (SELECT DISTINCT \(key), \(column) AS v \(source))"
                value = "v"
            }
        }
        let function: String
        switch name {
        case "@count": function = tail.isEmpty && !scope.isFlattened ? "count(*)" : "count(DISTINCT \(value))"
        case "@sum": function = overValues ? "coalesce(sum(DISTINCT \(value)), 0)" : "coalesce(sum(\(value)), 0)"
        case "@avg": function = overValues ? "avg(DISTINCT \(value))" : "avg(coalesce(\(value), 0))"
        case "@min": function = "min(\(value))"
        default: function = "max(\(value))"
        }
        return "(SELECT \(function) \(source))"
    }

    /// `SUBQUERY(collection, $x, predicate).@count`: inside the predicate, `$x`, `SELF` and plain
    /// key paths are the element, as NSPredicate evaluates the predicate against each element.
    mutating func subquery(
        _ collection: FetchPredicate.Expression, variable: String, predicate: FetchPredicate, keyPath: [String]
    ) throws(FetchPredicateError) -> String {
        guard keyPath.map({ $0.lowercased() }) == ["@count"] else {
            throw error("SUBQUERY(…) is a collection; follow it with .@count, as in SUBQUERY(items, $x, $x.price > 5).@count > 0")
        }
        guard let (place, path) = base(of: collection), !path.isEmpty, try steps(path, from: place.table).last?.isToMany == true,
            try !steps(path, from: place.table).contains(where: \.isAggregate)
        else {
            throw error(
                "the collection of SUBQUERY must be a key path ending at a to-many relationship, as in SUBQUERY(items, $x, …); \(collection) is not"
            )
        }
        let steps = try steps(path, from: place.table)
        let scope = try openScope(path, steps: steps, from: place)
        let (savedRoot, savedBinding) = (root, bindings[variable])
        (root, bindings[variable]) = (scope.element, scope.element)
        innerJoins.append([])
        let condition = try compile(predicate)
        let from = ([scope.from] + innerJoins.removeLast()).joined(separator: " ")
        (root, bindings[variable]) = (savedRoot, savedBinding)
        let count =
            scope.isFlattened ? "count(DISTINCT \(scope.element.alias).\(quoteIdentifier(scope.element.table.keyColumn)))" : "count(*)"
        return "(SELECT \(count) FROM \(from) WHERE \(scope.conditions.joined(separator: " AND ")) AND \(condition))"
    }

    /// A comparison with managed objects, rewritten to their keys in this store.
    enum ObjectComparison {
        case resolved(FetchPredicate.Expression, FetchPredicate.Expression)
        case sql(String)
    }

    /// Replaces object arguments by their keys where they belong to this store and to the table the
    /// other side's objects are in; one that does not can equal nothing there.
    func resolveObjects(
        _ lhs: FetchPredicate.Expression, _ op: FetchPredicate.ComparisonOperator, _ rhs: FetchPredicate.Expression
    ) throws(FetchPredicateError) -> ObjectComparison? {
        func isObject(_ expression: FetchPredicate.Expression) -> Bool {
            switch expression {
            case .object: true
            case .list(let items): items.contains(where: isObject)
            default: false
            }
        }
        guard isObject(lhs) || isObject(rhs) else { return nil }
        if case .object(let left) = lhs, case .object(let right) = rhs, op == .equal || op == .notEqual {
            return .sql((left == right) == (op == .equal) ? "1" : "0")
        }
        let (other, objects) = isObject(rhs) ? (lhs, rhs) : (rhs, lhs)
        guard let table = try objectTable(of: other) else {
            throw error("\(other) is not an object; compare an object with SELF, a relationship or a SUBQUERY variable")
        }
        func key(_ id: ObjectID) -> StoreValue? {
            guard let storeIdentifier, id.storeIdentifier == storeIdentifier, schema.table(for: id.entity)?.name == table.name else {
                return nil
            }
            return id.key
        }
        switch (op, objects) {
        case (.equal, .object(let id)), (.notEqual, .object(let id)):
            guard let key = key(id) else { return .sql(op == .equal ? "0" : "1") }
            return isObject(rhs) ? .resolved(lhs, .value(key)) : .resolved(.value(key), rhs)
        case (.in, .list(let items)) where isObject(rhs):
            let members: [FetchPredicate.Expression] = items.compactMap { item in
                guard case .object(let id) = item else { return item }
                return key(id).map(FetchPredicate.Expression.value)
            }
            return .resolved(lhs, .list(members))
        default:
            throw error("objects can only be compared with ==, != or IN; \(op.rawValue) cannot compare \(objects)")
        }
    }
}
