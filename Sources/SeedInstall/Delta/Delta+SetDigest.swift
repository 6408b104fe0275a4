import Foundation

extension Delta {
    /// The set digest of this delta's result, from its base's: each row an operation removes or
    /// changes leaves the digest (read from `base`, the store the delta applies to, by its key),
    /// each row it inserts or gives joins it. Costs what the delta touches; `base` is only read.
    ///
    /// Rows an earlier operation of the delta touched are taken as that operation left them, so the
    /// result is the digest of the store the delta's plan gives, whatever the order of its operations.
    /// - Throws: ``DeltaError`` (`inconsistent`) when an insert meets a row already there (the plan
    ///   would fail on it), ``StoreError`` when `base` cannot be read.
    package func update(_ digest: SetDigest, base: StoreConnection) throws -> SetDigest {
        var digest = digest
        var overlay = RowOverlay(tables: header.tables, base: base)
        for operation in operations {
            let table = header.tables[operation.table]
            switch operation {
            case .clear(let index):
                for row in try overlay.allRows(of: index) { digest.remove(Self.element(table, row)) }
                overlay.clear(index)
            case .delete(let index, let key):
                if let old = try overlay.row(index, key: key) {
                    digest.remove(Self.element(table, old))
                    overlay.set(index, key: key, row: nil)
                }
            case .insert(let index, let row):
                let key = table.key(of: row)
                if table.isKeyed, try overlay.row(index, key: key) != nil {
                    throw DeltaError(
                        .inconsistent, "the delta inserts into \(table.name) a row whose key is there already; fetch the full artifact")
                }
                digest.insert(Self.element(table, row))
                if table.isKeyed { overlay.set(index, key: key, row: row) } else { overlay.append(index, row: row) }
            case .update(let index, let key, let changes):
                guard var row = try overlay.row(index, key: key) else { continue }
                digest.remove(Self.element(table, row))
                for change in changes { row[change.column] = change.value }
                digest.insert(Self.element(table, row))
                overlay.set(index, key: key, row: nil)
                overlay.set(index, key: table.key(of: row), row: row)
            }
        }
        return digest
    }

    private static func element(_ table: DeltaTable, _ row: [DeltaValue]) -> [UInt8] {
        SetDigest.Element.row(table: table.name, columns: table.columns, values: row)
    }
}

/// The rows a delta has touched so far, over the base store's: what each key holds now.
private struct RowOverlay {
    struct Key: Hashable {
        var table: Int
        var values: [DeltaValue]
    }

    let tables: [DeltaTable]
    let base: StoreConnection
    /// Key → the row it holds now, or nil once removed.
    private var touched: [Key: [DeltaValue]?] = [:]
    /// Tables cleared whole: their base rows are gone.
    private var cleared: Set<Int> = []
    /// Rows inserted into tables without a key (which a delta replaces whole).
    private var unkeyed: [Int: [[DeltaValue]]] = [:]

    init(tables: [DeltaTable], base: StoreConnection) {
        self.tables = tables
        self.base = base
    }

    mutating func append(_ table: Int, row: [DeltaValue]) {
        unkeyed[table, default: []].append(row)
    }

    mutating func set(_ table: Int, key: [DeltaValue], row: [DeltaValue]?) {
        touched[Key(table: table, values: key)] = .some(row)
    }

    /// The row `key` holds now: as the delta left it, else the base's (by its primary key).
    func row(_ table: Int, key: [DeltaValue]) throws -> [DeltaValue]? {
        if let now = touched[Key(table: table, values: key)] { return now }
        if cleared.contains(table) { return nil }
        let description = tables[table]
        let condition = description.keyColumns.map { "\(quoteIdentifier(description.columns[$0])) = ?" }.joined(separator: " AND ")
        let select =
            "SELECT \(description.columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(description.name)) WHERE \(condition)"
        return try base.rows(select, key).first
    }

    /// Every row the table holds now.
    func allRows(of table: Int) throws -> [[DeltaValue]] {
        let description = tables[table]
        var rows: [[DeltaValue]] = []
        if !cleared.contains(table) {
            let select =
                "SELECT \(description.columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(description.name))"
            try base.forEachRow(select) { row in
                let values = (0..<row.count).map(row.value)
                if !description.isKeyed || touched[Key(table: table, values: description.key(of: values))] == nil { rows.append(values) }
            }
        }
        for (key, row) in touched where key.table == table {
            if let row { rows.append(row) }
        }
        return rows + (unkeyed[table] ?? [])
    }

    mutating func clear(_ table: Int) {
        touched = touched.filter { $0.key.table != table }
        unkeyed[table] = nil
        cleared.insert(table)
    }
}
