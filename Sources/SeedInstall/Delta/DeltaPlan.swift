/// One statement of a delta's apply plan, with the values bound to its `?` parameters in order.
public struct DeltaStatement: Sendable, Hashable {
    public var sql: String
    public var values: [DeltaValue]
}

/// What a delta is applied to: the target store's tables as they are (every table in
/// `sqlite_master` except `sqlite_%`, with its columns and primary key) and its release.
public struct DeltaTarget: Sendable, Hashable {
    public var tables: [DeltaTable]
    public var release: DeltaRelease

    public init(tables: [DeltaTable], release: DeltaRelease) {
        self.tables = tables
        self.release = release
    }
}

/// The SQL statements that turn a delta's base into its result.
///
/// Run them in order in one transaction on a copy of the base, then check the result's content
/// digest against ``DeltaHeader/to`` before switching to it:
/// ```swift
/// let delta = try DeltaReader.read(path)
/// for statement in try DeltaPlan.statements(for: delta, target: target) { try run(statement) }
/// ```
public enum DeltaPlan {
    /// - Throws: ``DeltaError`` before any statement is made when the target's tables or columns
    ///   differ from the delta's (`schemaMismatch`) or the target is another release than the
    ///   delta's base (`wrongBase`).
    public static func statements(for delta: Delta, target: DeltaTarget) throws(DeltaError) -> [DeltaStatement] {
        try check(delta.header, against: target)
        let tables = delta.header.tables
        let deletes = tables.map { "DELETE FROM \(quote($0.name)) WHERE \(keyCondition($0))" }
        let inserts = tables.map { table in
            "INSERT INTO \(quote(table.name)) (\(table.columns.map(quote).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: table.columns.count).joined(separator: ", ")))"
        }
        return delta.operations.map { operation in
            let table = tables[operation.table]
            switch operation {
            case .clear:
                return DeltaStatement(sql: "DELETE FROM \(quote(table.name))", values: [])
            case .delete(let index, let key):
                return DeltaStatement(sql: deletes[index], values: key)
            case .insert(let index, let row):
                return DeltaStatement(sql: inserts[index], values: row)
            case .update(_, let key, let changes):
                let assignments = changes.map { "\(quote(table.columns[$0.column])) = ?" }.joined(separator: ", ")
                return DeltaStatement(sql: "UPDATE \(quote(table.name)) SET \(assignments) WHERE \(keyCondition(table))", values: changes.map(\.value) + key)
            }
        }
    }

    /// Refuses a target of another schema or release, naming the first difference.
    public static func check(_ header: DeltaHeader, against target: DeltaTarget) throws(DeltaError) {
        if let problem = difference(header.tables, target.tables, expected: "the delta", actual: "the target") {
            throw DeltaError(.schemaMismatch, "the delta is of another schema: \(problem); fetch the full artifact")
        }
        guard target.release.contentDigest == header.from.contentDigest else {
            throw DeltaError(.wrongBase, "the delta applies to data version \(header.from.dataVersion) (content digest \(header.from.contentDigest.prefix(12))…), not to the store at hand, data version \(target.release.dataVersion) (\(target.release.contentDigest.prefix(12))…); fetch the full artifact")
        }
    }

    /// The first difference between two table lists, worded with the names of their holders, or nil.
    package static func difference(_ expected: [DeltaTable], _ actual: [DeltaTable], expected expectedName: String, actual actualName: String) -> String? {
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
        table.keyColumns.map { "\(quote(table.columns[$0])) = ?" }.joined(separator: " AND ")
    }

    /// An SQL identifier in double quotes.
    package static func quote(_ name: String) -> String {
        "\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\""
    }
}
