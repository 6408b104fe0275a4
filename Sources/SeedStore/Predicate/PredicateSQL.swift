import SeedModel

/// A predicate compiled to an SQL `WHERE` clause over one entity table (aliased `t0`), with the
/// joins its key paths need and the values to bind. Values are always bound, never spliced.
struct PredicateSQL {
    var whereClause: String
    var arguments: [StoreValue]
    var joins: [String]

    /// Compiles a predicate whose variables are already substituted.
    /// - Throws: ``FetchPredicateError`` for an unknown key path, a to-many key path or a leftover variable.
    init(_ predicate: FetchPredicate, table: EntityTable, schema: StoreSchema, format: String) throws(FetchPredicateError) {
        var compiler = Compiler(schema: schema, table: table, format: format)
        whereClause = try compiler.compile(predicate)
        arguments = compiler.arguments
        joins = compiler.joins
    }

    /// The SQL expression of a sort key or key path, adding any join it needs.
    static func column(for keyPath: [String], table: EntityTable, schema: StoreSchema, joins: inout [String]) throws(FetchPredicateError) -> String {
        var compiler = Compiler(schema: schema, table: table, format: keyPath.joined(separator: "."))
        compiler.joins = joins
        let sql = try compiler.numeric(.keyPath(keyPath))
        joins = compiler.joins
        return sql
    }

    private struct Compiler {
        let schema: StoreSchema
        let table: EntityTable
        let format: String
        var arguments: [StoreValue] = []
        var joins: [String] = []

        init(schema: StoreSchema, table: EntityTable, format: String) {
            self.schema = schema
            self.table = table
            self.format = format
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
            case .between(let value, let lower, let upper):
                let (low, high) = (stored(asNumber(lower, against: value), against: value), stored(asNumber(upper, against: value), against: value))
                return "(\(try numeric(value)) BETWEEN \(try numeric(low)) AND \(try numeric(high)))"
            case .comparison(let lhs, let op, let rhs, let options):
                return try comparison(lhs, op, rhs, options)
            }
        }

        private mutating func comparison(
            _ lhs: FetchPredicate.Expression, _ op: FetchPredicate.ComparisonOperator, _ rhs: FetchPredicate.Expression, _ options: FetchPredicate.StringOptions
        ) throws(FetchPredicateError) -> String {
            var (lhs, rhs) = (lhs, rhs)
            if options.isEmpty, ![.beginsWith, .endsWith, .contains, .like].contains(op) {
                (lhs, rhs) = (asNumber(lhs, against: rhs), asNumber(rhs, against: lhs))
                (lhs, rhs) = (stored(lhs, against: rhs), stored(rhs, against: lhs))
            }
            let fold: (String) -> String = options.isEmpty ? { $0 } : { "seed_fold(\($0), \(options.rawValue))" }
            if op == .in {
                guard case .list(let items) = rhs else {
                    throw FetchPredicateError(format: format, position: nil, "IN needs a list {a, b, …} on its right")
                }
                let left = options.isEmpty ? try numeric(lhs) : fold(try operand(lhs))
                var members: [String] = []
                var matchesNil = false
                for item in items {
                    if case .value(.null) = item { matchesNil = true; continue }
                    members.append(fold(try operand(item)))
                }
                var clause = members.isEmpty ? "0" : "\(left) IN (\(members.joined(separator: ", ")))"
                if matchesNil { clause = "(\(clause) OR \(try operand(lhs)) IS NULL)" }
                return clause
            }
            if case .list = rhs {
                throw FetchPredicateError(format: format, position: nil, "a list {…} can only follow IN or BETWEEN")
            }
            let value = { (compiler: inout Compiler, expression: FetchPredicate.Expression) throws(FetchPredicateError) -> String in
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
            case .beginsWith, .endsWith, .contains:
                // NSString's hasPrefix, hasSuffix and contains answer NO for an empty string, and nil matches nothing.
                if case .value(.text("")) = rhs { return "0" }
                let right = fold(try operand(rhs))
                let left = fold(try operand(lhs))
                let again = fold(try operand(rhs))
                if op == .contains { return "(length(\(right)) > 0 AND instr(\(left), \(again)) > 0)" }
                let third = fold(try operand(rhs))
                if op == .endsWith { return "(length(\(right)) > 0 AND substr(\(left), -length(\(again))) = \(third))" }
                let exact = "length(\(right)) > 0 AND substr(\(left), 1, length(\(again))) = \(third)"
                // A constant prefix on a plain column also becomes a range, so an index on the column
                // is used: every string starting with P sorts in [P, P + U+10FFFF) under BINARY
                // collation, except ones continuing with the noncharacter U+10FFFF itself.
                // Only for text: SQLite compares a numeric column with the prefix as a number.
                if options.isEmpty, case .keyPath(let path) = lhs, path.count == 1, table.entity.attribute(named: path[0])?.type == .string,
                    case .value(.text(let prefix)) = rhs
                {
                    arguments.append(.text(prefix))
                    arguments.append(.text(prefix + "\u{10FFFF}"))
                    return "(\(exact) AND \(left) >= ? AND \(left) < ?)"
                }
                return "(\(exact))"
            case .in:
                preconditionFailure("IN is handled above")
            }
        }

        private mutating func operand(_ expression: FetchPredicate.Expression) throws(FetchPredicateError) -> String {
            switch expression {
            case .value(let value):
                arguments.append(value)
                return "?"
            case .keyPath(let path):
                return try column(path)
            case .variable(let name, _):
                throw FetchPredicateError(format: format, position: nil, "$\(name) has no value; substitute the variables before fetching")
            case .list:
                throw FetchPredicateError(format: format, position: nil, "a list {…} can only follow IN or BETWEEN")
            }
        }

        /// An operand read as a number where it is a Decimal attribute stored as canonical text (the
        /// plain layout), so `10.5 > 5` and sorting are numeric, as `NSDecimalNumber` compares. An
        /// index on such a column is not used for these comparisons: its text order is not numeric.
        mutating func numeric(_ expression: FetchPredicate.Expression) throws(FetchPredicateError) -> String {
            let sql = try operand(expression)
            return isTextDecimal(expression) ? "CAST(\(sql) AS NUMERIC)" : sql
        }

        /// Text that reads as a number, compared with a Decimal attribute, as that number: a value
        /// from a command line (`--arg 5`) is text, and SQLite orders every number before every text.
        private func asNumber(_ expression: FetchPredicate.Expression, against other: FetchPredicate.Expression) -> FetchPredicate.Expression {
            guard isTextDecimal(other) else { return expression }
            switch expression {
            case .value(.text(let text)):
                if let integer = Int64(text) { return .value(.integer(integer)) }
                if let real = Double(text), real.isFinite { return .value(.real(real)) }
                return expression
            case .list(let items): return .list(items.map { asNumber($0, against: other) })
            default: return expression
            }
        }

        /// Values compared with an attribute, in the form its column keeps them (Core Data's layout
        /// keeps dates since 2001 and UUIDs as bytes), so the comparison runs on the stored column and its index.
        private func stored(_ expression: FetchPredicate.Expression, against other: FetchPredicate.Expression) -> FetchPredicate.Expression {
            guard case .keyPath(let path) = other, let (owner, column) = storedColumnAndTable(path) else { return expression }
            switch expression {
            case .value(let value): return .value(owner.encode(value, in: column))
            case .list(let items): return .list(items.map { stored($0, against: other) })
            default: return expression
            }
        }

        private func isTextDecimal(_ expression: FetchPredicate.Expression) -> Bool {
            guard case .keyPath(let path) = expression, let column = storedColumn(path), column.type == "TEXT",
                case .attribute(let attribute) = column.kind
            else { return false }
            return attribute.type == .decimal
        }

        /// The column a key path ends at in its table, found after ``column(_:)`` accepted the path.
        private func storedColumn(_ path: [String]) -> EntityTable.Column? {
            storedColumnAndTable(path)?.column
        }

        private func storedColumnAndTable(_ path: [String]) -> (table: EntityTable, column: EntityTable.Column)? {
            var current = table
            for name in path.dropLast() {
                guard let relationship = current.entity.relationship(named: name), let destination = schema.table(for: relationship.destination) else { return nil }
                current = destination
            }
            guard let last = path.last, let column = current.column(for: last) else { return nil }
            return (current, column)
        }

        /// The column a key path names, joining through to-one relationships.
        mutating func column(_ path: [String]) throws(FetchPredicateError) -> String {
            var current = table
            var alias = "t0"
            for (offset, name) in path.enumerated() {
                let isLast = offset == path.count - 1
                if let attribute = current.entity.attribute(named: name) {
                    guard isLast else {
                        throw FetchPredicateError(format: format, position: nil, "\(current.entity.name).\(name) is an attribute; a key path can only go on through a to-one relationship")
                    }
                    guard !attribute.isTransient else {
                        throw FetchPredicateError(format: format, position: nil, "\(current.entity.name).\(name) is transient and not stored; it cannot be used in a fetch")
                    }
                    return "\(alias).\(quoteIdentifier(current.columnName(for: name)))"
                }
                guard let relationship = current.entity.relationship(named: name) else {
                    let known = current.entity.attributes.map(\.name) + current.entity.relationships.map(\.name)
                    throw FetchPredicateError(
                        format: format, position: nil,
                        "\(current.entity.name) has no attribute or relationship named \"\(name)\"; it has \(known.joined(separator: ", "))")
                }
                guard !relationship.isToMany else {
                    throw FetchPredicateError(format: format, position: nil, "\(current.entity.name).\(name) is a to-many relationship; key paths can only go through to-one relationships")
                }
                guard let destination = schema.table(for: relationship.destination) else {
                    throw FetchPredicateError(format: format, position: nil, "\(current.entity.name).\(name) leads to \(relationship.destination), which is not in this store")
                }
                let storedHere = current.columns.contains { if case .toOne(let r) = $0.kind { r.name == name } else { false } }
                if isLast, storedHere { return "\(alias).\(quoteIdentifier(current.columnName(for: name)))" }
                let pk = quoteIdentifier(destination.keyColumn)
                // The alias is named after the key path, so a sort key and the predicate share one join.
                let nextAlias = quoteIdentifier("j." + path[...offset].joined(separator: "."))
                let join: String
                if storedHere {
                    join = "LEFT JOIN \(quoteIdentifier(destination.name)) AS \(nextAlias) ON \(nextAlias).\(pk) = \(alias).\(quoteIdentifier(current.columnName(for: name)))"
                } else if let inverse = relationship.inverse,
                    destination.columns.contains(where: { if case .toOne(let r) = $0.kind { r.name == inverse } else { false } })
                {
                    join = "LEFT JOIN \(quoteIdentifier(destination.name)) AS \(nextAlias) ON \(nextAlias).\(quoteIdentifier(destination.columnName(for: inverse))) = \(alias).\(quoteIdentifier(current.keyColumn))"
                } else {
                    throw FetchPredicateError(format: format, position: nil, "\(current.entity.name).\(name) is not stored as a to-one column on either side")
                }
                if !joins.contains(join) { joins.append(join) }
                if isLast { return "\(nextAlias).\(pk)" }
                current = destination
                alias = nextAlias
            }
            throw FetchPredicateError(format: format, position: nil, "empty key path")
        }
    }
}
