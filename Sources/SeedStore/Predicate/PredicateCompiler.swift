import SeedModel

/// Compiles a ``FetchPredicate`` to SQL for ``PredicateSQL``: the comparisons of plain values here,
/// key paths in `PredicateCompiler+KeyPaths.swift`, to-many forms in `PredicateCompiler+Collections.swift`.
struct PredicateCompiler {
    /// A row a key path starts from: the fetched one (`t0`), or an element of a to-many in a subquery.
    struct Place {
        var alias: String
        var table: EntityTable
    }

    let schema: StoreSchema
    let format: String
    let storeIdentifier: String?
    /// What key paths and `SELF` start from: the fetched row, or the element inside a `SUBQUERY`.
    var root: Place
    var arguments: [StoreValue] = []
    /// The joins of the outer query.
    var joins: [String] = []
    /// The joins of the subqueries being compiled, innermost last.
    var innerJoins: [[String]] = []
    /// `SUBQUERY` variables and the compiler's own element variables → the element's row.
    var bindings: [String: Place] = [:]
    var nextAlias = 1

    init(schema: StoreSchema, table: EntityTable, format: String, storeIdentifier: String?) {
        self.schema = schema
        self.format = format
        self.storeIdentifier = storeIdentifier
        root = Place(alias: "t0", table: table)
    }

    func error(_ message: String) -> FetchPredicateError {
        FetchPredicateError(format: format, position: nil, message)
    }

    mutating func compile(_ predicate: FetchPredicate) throws(FetchPredicateError) -> String {
        switch predicate {
        case .constant(let value): return value ? "1" : "0"
        case .and(let parts):
            var clauses: [String] = []
            for part in parts { clauses.append(try compile(part)) }
            return "(" + clauses.joined(separator: " AND ") + ")"
        case .or(let parts):
            var clauses: [String] = []
            for part in parts { clauses.append(try compile(part)) }
            return "(" + clauses.joined(separator: " OR ") + ")"
        case .not(let inner):
            // NSPredicate's NOT is two-valued: a comparison with nil is false, so its negation is true.
            return "NOT coalesce(\(try compile(inner)), 0)"
        case .quantified(let quantifier, let inner):
            return try quantified(quantifier, inner)
        case .between(let value, let lower, let upper):
            if try isCollection(value) { return try quantified(.any, predicate) }
            let (low, high) = (
                stored(asNumber(lower, against: value), against: value), stored(asNumber(upper, against: value), against: value)
            )
            return "(\(try numeric(value)) BETWEEN \(try numeric(low)) AND \(try numeric(high)))"
        case .comparison(let lhs, let op, let rhs, let options):
            if let membership = try membership(lhs, op, rhs, options) { return membership }
            if try isCollection(lhs) { return try quantified(.any, predicate) }
            if try isCollection(rhs), let mirrored = op.mirrored {
                return try quantified(.any, .comparison(rhs, mirrored, lhs, options))
            }
            return try comparison(lhs, op, rhs, options)
        }
    }

    /// A comparison of two single values (no to-many key path on either side).
    mutating func comparison(
        _ lhs: FetchPredicate.Expression, _ op: FetchPredicate.ComparisonOperator, _ rhs: FetchPredicate.Expression,
        _ options: FetchPredicate.StringOptions
    ) throws(FetchPredicateError) -> String {
        var (lhs, rhs) = (lhs, rhs)
        if let objects = try resolveObjects(lhs, op, rhs) {
            switch objects {
            case .resolved(let left, let right): (lhs, rhs) = (left, right)
            case .sql(let clause): return clause
            }
        }
        if options.isEmpty, ![.beginsWith, .endsWith, .contains, .like, .matches].contains(op) {
            (lhs, rhs) = (asNumber(lhs, against: rhs), asNumber(rhs, against: lhs))
            (lhs, rhs) = (stored(lhs, against: rhs), stored(rhs, against: lhs))
        }
        let fold: (String) -> String = options.isEmpty ? { $0 } : { "seed_fold(\($0), \(options.rawValue))" }
        if op == .in {
            guard case .list(let items) = rhs else {
                throw error(
                    "IN needs a list {a, b, …}, a $VARIABLE holding one, or a key path through a to-many relationship on its right; \(rhs) is none of these"
                )
            }
            let left = options.isEmpty ? try numeric(lhs) : fold(try operand(lhs))
            var members: [String] = []
            var matchesNil = false
            for item in items {
                if case .value(.null) = item {
                    matchesNil = true
                    continue
                }
                members.append(fold(try operand(item)))
            }
            var clause = members.isEmpty ? "0" : "\(left) IN (\(members.joined(separator: ", ")))"
            if matchesNil { clause = "(\(clause) OR \(try operand(lhs)) IS NULL)" }
            return clause
        }
        if case .list = rhs {
            throw error("a list {…} can only follow IN or BETWEEN")
        }
        let value = { (compiler: inout PredicateCompiler, expression: FetchPredicate.Expression) throws(FetchPredicateError) -> String in
            options.isEmpty ? try compiler.numeric(expression) : fold(try compiler.operand(expression))
        }
        // Each piece is compiled in the order it appears in the SQL, as its values are bound in that order.
        switch op {
        case .equal: return "\(try value(&self, lhs)) IS \(try value(&self, rhs))"
        case .notEqual: return "\(try value(&self, lhs)) IS NOT \(try value(&self, rhs))"
        case .less: return "\(try value(&self, lhs)) < \(try value(&self, rhs))"
        case .lessOrEqual: return "\(try value(&self, lhs)) <= \(try value(&self, rhs))"
        case .greater: return "\(try value(&self, lhs)) > \(try value(&self, rhs))"
        case .greaterOrEqual: return "\(try value(&self, lhs)) >= \(try value(&self, rhs))"
        case .like:
            return "seed_like(\(try operand(lhs)), \(try operand(rhs)), \(options.rawValue))"
        case .matches:
            return "seed_matches(\(try operand(lhs)), \(try operand(rhs)), \(options.rawValue))"
        case .beginsWith, .endsWith, .contains:
            // NSString's hasPrefix, hasSuffix and contains answer NO for an empty string, and nil matches nothing.
            if case .value(.text("")) = rhs { return "0" }
            // A constant prefix on a plain text column is a range alone, so the column's index is
            // used and no function runs per row: under BINARY collation every string in
            // [P, P + U+10FFFF) starts with P (a string differing from P at some byte within P's
            // length sorts wholly before P or after P + anything), so the prefix test could not
            // drop a row the range keeps. Left out, as before, are strings continuing P with the
            // noncharacter U+10FFFF itself. Only for text: SQLite compares a numeric column with
            // the prefix as a number.
            if op == .beginsWith, options.isEmpty, try attribute(of: lhs)?.type == .string, case .value(.text(let prefix)) = rhs {
                let left = try operand(lhs)
                arguments.append(.text(prefix))
                arguments.append(.text(prefix + "\u{10FFFF}"))
                return "(\(left) >= ? AND \(left) < ?)"
            }
            if !options.isEmpty {
                // Folded, a match may not end inside a character (Å folds to a + ring), which SQL
                // cannot see; the functions compare whole characters (see FoldedText).
                let function = op == .beginsWith ? "seed_begins_with" : op == .endsWith ? "seed_ends_with" : "seed_contains"
                return "\(function)(\(try operand(lhs)), \(try operand(rhs)), \(options.rawValue))"
            }
            let right = try operand(rhs)
            let left = try operand(lhs)
            let again = try operand(rhs)
            if op == .contains { return "(length(\(right)) > 0 AND instr(\(left), \(again)) > 0)" }
            let third = try operand(rhs)
            if op == .endsWith { return "(length(\(right)) > 0 AND substr(\(left), -length(\(again))) = \(third))" }
            return "(length(\(right)) > 0 AND substr(\(left), 1, length(\(again))) = \(third))"
        case .in:
            preconditionFailure("IN is handled above")
        }
    }

    mutating func operand(_ expression: FetchPredicate.Expression) throws(FetchPredicateError) -> String {
        switch expression {
        case .value(let value):
            arguments.append(value)
            return "?"
        case .keyPath(let path):
            return try value(at: path, from: root)
        case .variable(let name, let path):
            guard let place = bindings[name] else {
                throw error("$\(name) has no value; substitute the variables before fetching")
            }
            return path.isEmpty ? "\(place.alias).\(quoteIdentifier(place.table.keyColumn))" : try value(at: path, from: place)
        case .evaluatedObject:
            return "\(root.alias).\(quoteIdentifier(root.table.keyColumn))"
        case .object(let id):
            throw error("the object \(id) can only be compared with ==, != or IN against SELF, a relationship or a SUBQUERY variable")
        case .subquery(let collection, let variable, let predicate, let path):
            return try subquery(collection, variable: variable, predicate: predicate, keyPath: path)
        case .list:
            throw error("a list {…} can only follow IN or BETWEEN")
        }
    }

    /// An operand read as a number where it is a Decimal attribute stored as canonical text (the
    /// plain layout), so `10.5 > 5` and sorting are numeric, as `NSDecimalNumber` compares. An
    /// index on such a column is not used for these comparisons: its text order is not numeric.
    mutating func numeric(_ expression: FetchPredicate.Expression) throws(FetchPredicateError) -> String {
        let sql = try operand(expression)
        return try isTextDecimal(expression) ? "CAST(\(sql) AS NUMERIC)" : sql
    }

    /// Text that reads as a number, compared with a Decimal attribute, as that number: a value
    /// from a command line (`--arg 5`) is text, and SQLite orders every number before every text.
    func asNumber(_ expression: FetchPredicate.Expression, against other: FetchPredicate.Expression) -> FetchPredicate.Expression {
        guard (try? isTextDecimal(other)) == true else { return expression }
        switch expression {
        case .value(.text(let text)):
            if let integer = Int64(text) { return .value(.integer(integer)) }
            if let real = Double(text), real.isFinite { return .value(.real(real)) }
            return expression
        case .list(let items): return .list(items.map { asNumber($0, against: other) })
        default: return expression
        }
    }

    /// Values compared with an attribute, in the form its column keeps them (Core Data's layout keeps
    /// dates since 2001 and UUIDs as bytes), so the comparison runs on the stored column and its index.
    func stored(_ expression: FetchPredicate.Expression, against other: FetchPredicate.Expression) -> FetchPredicate.Expression {
        guard let column = try? storedColumn(of: other) else { return expression }
        switch expression {
        case .value(let value): return .value(root.table.encode(value, in: column))
        case .list(let items): return .list(items.map { stored($0, against: other) })
        default: return expression
        }
    }

    private func isTextDecimal(_ expression: FetchPredicate.Expression) throws(FetchPredicateError) -> Bool {
        guard let column = try storedColumn(of: expression), case .attribute(let attribute) = column.kind else { return false }
        return attribute.type == .decimal && column.type == "TEXT"
    }
}

extension FetchPredicate.ComparisonOperator {
    /// The operator with its sides swapped (`a < b` is `b > a`), for the comparisons that have one.
    var mirrored: Self? {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .in, .beginsWith, .endsWith, .contains, .like, .matches: nil
        }
    }
}
