import Foundation
package import GRDB
import SeedModel

/// Derived attributes: their values computed in the store, as Core Data computes them on save
/// ([NSDerivedAttributeDescription](https://developer.apple.com/documentation/coredata/nsderivedattributedescription)).
///
/// The derivations Core Data supports on one row or a relationship count are computed: an
/// attribute or a to-one key path (`name`, `county.name`), `lowercase:(…)`, `uppercase:(…)` and
/// `canonical:(…)` of one (Unicode case and diacritic folding), `now()`, and the count of a to-many
/// relationship (`pages.@count`). Any other expression is refused, naming the attribute.
extension StoreSchema {
    /// One `UPDATE` that fills a derived attribute's column.
    package struct DerivedUpdate: Sendable {
        package var table: String
        package var attribute: String
        package var sql: String
        package var arguments: StatementArguments
    }

    /// The statements that compute every derived attribute of the store, in table order.
    /// - Parameter now: the value of `now()` (a build's time, so builds stay reproducible).
    /// - Throws: ``ModelError`` naming every derived attribute whose expression cannot be computed.
    package func derivedUpdates(now: Date) throws(ModelError) -> [DerivedUpdate] {
        var updates: [DerivedUpdate] = []
        var diagnostics: [ModelDiagnostic] = []
        for table in tables {
            for column in table.columns {
                guard case .attribute(let attribute) = column.kind, let derivation = attribute.derivation else { continue }
                do {
                    var (expression, arguments) = try derivedExpression(derivation.expression, in: table, now: now)
                    // now() is bound in the column's stored form (Core Data's layout counts from 2001).
                    if derivation.expression.trimmingCharacters(in: .whitespaces) == "now()" {
                        arguments = [table.encode(.real(now.timeIntervalSince1970), in: column).databaseValue]
                    }
                    let sql = "UPDATE \(quoteIdentifier(table.name)) AS \"row\" SET \(quoteIdentifier(column.name)) = \(expression)"
                    updates.append(DerivedUpdate(table: table.name, attribute: attribute.name, sql: sql, arguments: arguments))
                } catch {
                    diagnostics.append(
                        ModelDiagnostic(
                            .error,
                            "the derivation \"\(derivation.expression)\" cannot be computed: \(error.reason); seed stores compute an attribute or to-one key path, lowercase:(), uppercase:(), canonical:(), now() and to-many.@count",
                            source: table.entity.origin ?? model.source, entity: table.entity.name, property: attribute.name))
                }
            }
        }
        if !diagnostics.isEmpty { throw .invalid(diagnostics) }
        return updates
    }

    /// Registers the functions derived values use on a connection.
    package static func registerDerivedFunctions(in db: Database) {
        db.add(function: TextFolding.function)
        db.add(function: uppercase)
    }

    private static let uppercase = DatabaseFunction("seed_upper", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.uppercased() ?? values[0]
    }

    private struct Unsupported: Error {
        var reason: String
    }

    private func derivedExpression(_ text: String, in table: EntityTable, now: Date) throws(Unsupported) -> (String, StatementArguments) {
        let expression = text.trimmingCharacters(in: .whitespaces)
        if expression == "now()" { return ("?", [now.timeIntervalSince1970]) }
        for (function, sql) in [("lowercase", "seed_fold(%@, 1)"), ("uppercase", "seed_upper(%@)"), ("canonical", "seed_fold(%@, 3)")] {
            let prefix = "\(function):("
            if expression.hasPrefix(prefix), expression.hasSuffix(")") {
                let inner = String(expression.dropFirst(prefix.count).dropLast())
                return (sql.replacingOccurrences(of: "%@", with: try keyPath(inner, in: table)), [])
            }
        }
        if expression.hasSuffix(".@count") {
            return (try count(String(expression.dropLast(".@count".count)), in: table), [])
        }
        return (try keyPath(expression, in: table), [])
    }

    /// An attribute of the row, or an attribute of its to-one destination, as a SQL expression.
    private func keyPath(_ path: String, in table: EntityTable) throws(Unsupported) -> String {
        let parts = path.trimmingCharacters(in: .whitespaces).split(separator: ".").map(String.init)
        if parts.count == 1, table.entity.attribute(named: parts[0])?.isStored == true {
            return "\"row\".\(quoteIdentifier(table.columnName(for: parts[0])))"
        }
        guard parts.count == 2, let relationship = table.entity.relationship(named: parts[0]), !relationship.isToMany,
            storage.place(of: relationship.name, in: table.entity.name) == .column,
            let destination = self.table(for: relationship.destination),
            destination.entity.attribute(named: parts[1])?.isStored == true
        else {
            throw Unsupported(reason: "\"\(path)\" is not an attribute of \(table.entity.name) or of one of its to-one relationships")
        }
        return
            "(SELECT \(quoteIdentifier(destination.columnName(for: parts[1]))) FROM \(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(destination.keyColumn)) = \"row\".\(quoteIdentifier(table.columnName(for: relationship.name))))"
    }

    /// The number of objects a to-many relationship of the row holds.
    private func count(_ name: String, in table: EntityTable) throws(Unsupported) -> String {
        guard let relationship = table.entity.relationship(named: name), relationship.isToMany else {
            throw Unsupported(reason: "\"\(name)\" is not a to-many relationship of \(table.entity.name)")
        }
        let key = "\"row\".\(quoteIdentifier(table.keyColumn))"
        switch storage.place(of: relationship.name, in: table.entity.name) {
        case .joinTable(let join):
            return "(SELECT count(*) FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.sourceColumn)) = \(key))"
        case .foreignColumn(let column):
            guard let destination = self.table(for: relationship.destination) else {
                throw Unsupported(reason: "\(table.entity.name).\(name) is not stored in this store")
            }
            return "(SELECT count(*) FROM \(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(column)) = \(key))"
        case .inverse:
            if let inverse = relationship.inverse, let destination = self.table(for: relationship.destination),
                case .column = storage.place(of: inverse, in: destination.entity.name)
            {
                return
                    "(SELECT count(*) FROM \(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(destination.columnName(for: inverse))) = \(key))"
            }
            if let inverse = relationship.inverse, case .joinTable(let join) = storage.place(of: inverse, in: relationship.destination) {
                return "(SELECT count(*) FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.destinationColumn)) = \(key))"
            }
            throw Unsupported(reason: "\(table.entity.name).\(name) is not stored in this store")
        case .column:
            throw Unsupported(reason: "\(table.entity.name).\(name) is not a to-many relationship")
        }
    }
}
