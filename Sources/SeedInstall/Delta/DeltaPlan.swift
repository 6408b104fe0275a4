/// One statement of a delta's apply plan, with the values bound to its `?` parameters in order.
package struct DeltaStatement: Sendable, Hashable {
    /// The SQL, with `?` for each value.
    package var sql: String
    /// The values bound to the `?` parameters, in order.
    package var values: [DeltaValue]
}

/// What a delta is applied to: the target store's tables as they are (every table in
/// `sqlite_master` except `sqlite_%`, with its columns and primary key) and its release.
package struct DeltaTarget: Sendable, Hashable {
    /// The target store's tables, with their columns and primary keys.
    package var tables: [DeltaTable]
    /// The release the target store holds, from its metadata.
    package var release: DeltaRelease

    /// A target of these tables holding `release`.
    package init(tables: [DeltaTable], release: DeltaRelease) {
        self.tables = tables
        self.release = release
    }
}

/// The SQL statements that turn a delta's base into its result.
///
/// Run them in order in one transaction on a copy of the base, then check the result's content
/// digest against ``DeltaHeader/to`` before switching to it:
/// ```swift
/// let delta = try DeltaReader.decode(gzip: downloaded, maxBytes: bound)
/// for statement in try DeltaPlan.statements(for: delta, target: target) { try run(statement) }
/// ```
package enum DeltaPlan {
    /// - Throws: ``DeltaError`` before any statement is made when the delta names a table twice or
    ///   keys one by other columns than its primary key in the target (`corrupt`), the target's
    ///   tables or columns differ from the delta's (`schemaMismatch`), the target is another release
    ///   than the delta's base (`wrongBase`), or an operation breaks `DeltaOrder`'s rules
    ///   (`inconsistent`).
    package static func statements(for delta: Delta, target: DeltaTarget) throws(DeltaError) -> [DeltaStatement] {
        try check(delta.header, against: target)
        let tables = delta.header.tables
        // A decoded delta was checked as it was read; one made in memory is checked here, so no
        // operation can name a table, column or key the plan does not have.
        var order = DeltaOrder(tables: tables)
        for operation in delta.operations { try order.check(operation) }
        let deletes = tables.map { "DELETE FROM \(quoteIdentifier($0.name)) WHERE \(keyCondition($0))" }
        let inserts = tables.map { table in
            "INSERT INTO \(quoteIdentifier(table.name)) (\(table.columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: table.columns.count).joined(separator: ", ")))"
        }
        return delta.operations.map { operation in
            let table = tables[operation.table]
            switch operation {
            case .clear:
                return DeltaStatement(sql: "DELETE FROM \(quoteIdentifier(table.name))", values: [])
            case .delete(let index, let key):
                return DeltaStatement(sql: deletes[index], values: key)
            case .insert(let index, let row):
                return DeltaStatement(sql: inserts[index], values: row)
            case .update(_, let key, let changes):
                let assignments = changes.map { "\(quoteIdentifier(table.columns[$0.column])) = ?" }.joined(separator: ", ")
                return DeltaStatement(
                    sql: "UPDATE \(quoteIdentifier(table.name)) SET \(assignments) WHERE \(keyCondition(table))",
                    values: changes.map(\.value) + key)
            }
        }
    }

    /// Refuses a delta that names a table twice or keys one by columns other than the target's
    /// primary key (`corrupt`: each of its operations would scan the table), then a target of another
    /// schema or release, naming the first difference.
    package static func check(_ header: DeltaHeader, against target: DeltaTarget) throws(DeltaError) {
        try checkKeys(header.tables, against: target.tables)
        if let problem = difference(header.tables, target.tables, expected: "the delta", actual: "the target") {
            throw DeltaError(.schemaMismatch, "the delta is of another schema: \(problem); fetch the full artifact")
        }
        guard target.release.contentDigest == header.from.contentDigest else {
            throw DeltaError(
                .wrongBase,
                "the delta applies to data version \(header.from.dataVersion) (content digest \(header.from.contentDigest.prefix(12))…), not to the store at hand, data version \(target.release.dataVersion) (\(target.release.contentDigest.prefix(12))…); fetch the full artifact"
            )
        }
    }

    /// Each table once (SQLite's names ignore ASCII case), and each keyed by the target's primary key
    /// of that name, column for column in key order.
    static func checkKeys(_ tables: [DeltaTable], against target: [DeltaTable]) throws(DeltaError) {
        var seen: Set<String> = []
        for table in tables where !seen.insert(sqliteName(table.name)).inserted {
            throw DeltaError(.corrupt, "the delta names table \(table.name) twice; a delta lists each table once: fetch the full artifact")
        }
        let primaryKeys = Dictionary(target.map { ($0.name, keyNames($0)) }, uniquingKeysWith: { first, _ in first })
        for table in tables {
            guard let primaryKey = primaryKeys[table.name] else { continue }
            let keys = keyNames(table)
            guard keys == primaryKey else {
                let named = { (columns: [String]) in columns.isEmpty ? "no key" : "(\(columns.joined(separator: ", ")))" }
                throw DeltaError(
                    .corrupt,
                    "the delta keys table \(table.name) by \(named(keys)), but its primary key in the installed store is \(named(primaryKey)); fetch the full artifact"
                )
            }
        }
    }

    /// The names of a table's key columns, in key order.
    private static func keyNames(_ table: DeltaTable) -> [String] {
        table.keyColumns.map { table.columns.indices.contains($0) ? table.columns[$0] : "column \($0)" }
    }

    /// A table name as SQLite compares it: ASCII letters in either case are the same.
    private static func sqliteName(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The first difference between two table lists, worded with the names of their holders, or nil.
    package static func difference(
        _ expected: [DeltaTable], _ actual: [DeltaTable], expected expectedName: String, actual actualName: String
    ) -> String? {
        let left = Dictionary(expected.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        let right = Dictionary(actual.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        guard let name = Set(left.keys).union(right.keys).sorted().first(where: { left[$0] != right[$0] }) else { return nil }
        return switch (left[name], right[name]) {
        case (nil, _): "\(actualName) has a table \(name) that \(expectedName) lacks"
        case (_, nil): "\(actualName) lacks the table \(name)"
        case let (one?, other?) where one.columns != other.columns:
            "table \(name) has columns (\(other.columns.joined(separator: ", "))) in \(actualName), (\(one.columns.joined(separator: ", "))) in \(expectedName)"
        default: "table \(name) has another primary key in \(actualName) than in \(expectedName)"
        }
    }

    private static func keyCondition(_ table: DeltaTable) -> String {
        table.keyColumns.map { "\(quoteIdentifier(table.columns[$0])) = ?" }.joined(separator: " AND ")
    }
}
