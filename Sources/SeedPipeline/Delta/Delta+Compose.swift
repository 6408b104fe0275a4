import Foundation
import SeedInstall

extension Delta {
    /// The delta from `first`'s base to `second`'s result, without either store.
    ///
    /// Per key: an insert then an update is an insert of the updated row; an insert then a delete is
    /// nothing; two updates merge; an update then a delete is a delete; a delete then an insert is
    /// both (applied in that order). A table without a primary key takes the last delta's rows.
    /// ```swift
    /// let weekly = try Delta.compose(monday, tuesday)
    /// ```
    /// - Throws: ``DeltaError`` when `second` does not start where `first` ends (`wrongBase`), their
    ///   tables differ (`schemaMismatch`), or an operation contradicts the one before (`inconsistent`,
    ///   naming the table and key: an insert of a key present, a delete or update of a key absent).
    package static func compose(_ first: Delta, _ second: Delta) throws(DeltaError) -> Delta {
        guard first.header.tables == second.header.tables else {
            throw DeltaError(
                .schemaMismatch, "the deltas are of stores with different tables or columns; compose deltas of one channel only")
        }
        guard first.header.to == second.header.from else {
            throw DeltaError(
                .wrongBase,
                "the second delta starts from data version \(second.header.from.dataVersion) (\(second.header.from.contentDigest.prefix(12))…), not where the first ends, \(first.header.to.dataVersion) (\(first.header.to.contentDigest.prefix(12))…)"
            )
        }
        var tables = first.header.tables.map { TableChanges(table: $0) }
        for operation in first.operations + second.operations {
            try tables[operation.table].fold(operation)
        }
        let header = DeltaHeader(from: first.header.from, to: second.header.to, tables: first.header.tables)
        return Delta(header: header, operations: tables.enumerated().flatMap { $0.element.operations(table: $0.offset) })
    }

    /// ``compose(_:_:)`` along a chain of deltas, oldest first.
    package static func compose(_ chain: [Delta]) throws(DeltaError) -> Delta {
        guard var result = chain.first else { throw DeltaError(.inconsistent, "no delta to compose") }
        for next in chain.dropFirst() { result = try compose(result, next) }
        return result
    }
}

/// One table's net changes while composing, by key in the order keys were first changed.
private struct TableChanges {
    /// What happened to one key since the first delta's base.
    enum Change {
        case unchanged
        case deleted
        case inserted([DeltaValue])
        /// Deleted, then inserted again: the row it holds now.
        case replaced([DeltaValue])
        case updated([Int: DeltaValue])
    }

    let table: DeltaTable
    var order: [[DeltaValue]] = []
    var changes: [[DeltaValue]: Change] = [:]
    /// A table without a key: whether it was cleared, and the rows inserted since.
    var cleared = false
    var rows: [[DeltaValue]] = []

    init(table: DeltaTable) {
        self.table = table
    }

    mutating func fold(_ operation: DeltaOperation) throws(DeltaError) {
        switch operation {
        case .clear:
            cleared = true
            rows = []
        case .insert(_, let row) where !table.isKeyed:
            rows.append(row)
        case .insert(_, let row):
            let key = table.key(of: row)
            switch changes[key] ?? .unchanged {
            case .unchanged: set(key, .inserted(row))
            case .deleted: set(key, .replaced(row))
            default: throw inconsistent("inserts", key, "present already")
            }
        case .delete(_, let key):
            switch changes[key] ?? .unchanged {
            case .unchanged, .updated, .replaced: set(key, .deleted)
            case .inserted: set(key, .unchanged)
            case .deleted: throw inconsistent("deletes", key, "deleted already")
            }
        case .update(_, let key, let updates):
            switch changes[key] ?? .unchanged {
            case .unchanged: set(key, .updated(Dictionary(updates.map { ($0.column, $0.value) }, uniquingKeysWith: { $1 })))
            case .updated(var columns):
                for update in updates { columns[update.column] = update.value }
                set(key, .updated(columns))
            case .inserted(var row):
                for update in updates { row[update.column] = update.value }
                set(key, .inserted(row))
            case .replaced(var row):
                for update in updates { row[update.column] = update.value }
                set(key, .replaced(row))
            case .deleted: throw inconsistent("updates", key, "deleted")
            }
        }
    }

    private mutating func set(_ key: [DeltaValue], _ change: Change) {
        if changes.updateValue(change, forKey: key) == nil { order.append(key) }
    }

    private func inconsistent(_ verb: String, _ key: [DeltaValue], _ state: String) -> DeltaError {
        let shown = zip(table.keyColumns, key).map { "\(table.columns[$0.0]) = \(Self.sqlText($0.1))" }.joined(separator: ", ")
        return DeltaError(.inconsistent, "the deltas do not chain: table \(table.name) \(verb) the row \(shown), \(state)")
    }

    /// The value as SQL would quote it, for a message naming a key.
    private static func sqlText(_ value: DeltaValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value.replacingOccurrences(of: "'", with: "''"))'"
        case .blob(let value): "X'\(value.map { String(format: "%02X", $0) }.joined())'"
        }
    }

    /// The net operations, in apply order.
    func operations(table index: Int) -> [DeltaOperation] {
        guard table.isKeyed else {
            return cleared ? [.clear(table: index)] + rows.map { .insert(table: index, row: $0) } : []
        }
        var deletes: [DeltaOperation] = [], inserts: [DeltaOperation] = [], updates: [DeltaOperation] = []
        for key in order {
            switch changes[key] ?? .unchanged {
            case .unchanged: break
            case .deleted: deletes.append(.delete(table: index, key: key))
            case .inserted(let row): inserts.append(.insert(table: index, row: row))
            case .replaced(let row):
                deletes.append(.delete(table: index, key: key))
                inserts.append(.insert(table: index, row: row))
            case .updated(let columns):
                let changes = columns.keys.sorted().map { DeltaChange(column: $0, value: columns[$0]!) }
                updates.append(.update(table: index, key: key, changes: changes))
            }
        }
        return deletes + inserts + updates
    }
}
