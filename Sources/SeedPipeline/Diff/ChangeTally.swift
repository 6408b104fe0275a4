import Foundation
import SeedInstall
import SeedStore

/// How the rows of one entity table are told apart by entity and named in a report: which column
/// holds each row's entity (an inheritance tree's), and which hold its unique key.
struct ChangeLabels: Sendable {
    /// The entities the table holds, its root first.
    let members: [String]
    /// The entity column's index among the diff's columns, for a tree.
    let entityColumn: Int32?
    /// Core Data's `Z_ENT` → index in ``members``.
    let entityNumbers: [Int64: Int]
    /// The columns naming a row in samples: the entity's unique key, else the table's key.
    let keyColumns: [Int32]
    /// Whether ``keyColumns`` are the table's own key (then a sample reads `Z_PK 12`).
    let keyIsRowKey: Bool
    let columnNames: [String]

    /// The labels of `table` for the diff's view of it, or nil when the diff's table is not the schema's.
    init?(_ table: EntityTable, diffTable: DeltaTable) {
        let index = { (name: String) in diffTable.columns.firstIndex(of: name).map(Int32.init) }
        members = table.members.isEmpty ? [table.entity.name] : table.members
        entityColumn = table.isTree ? table.entityColumn.flatMap { index($0.name) } : nil
        var numbers: [Int64: Int] = [:]
        for (position, member) in members.enumerated() {
            if let number = table.entityNumbers[member] { numbers[Int64(number)] = position }
        }
        entityNumbers = numbers
        columnNames = diffTable.columns
        let unique = table.entity.uniquenessConstraints.first { constraint in
            !constraint.isEmpty && constraint.allSatisfy { table.column(forAttribute: $0).flatMap(index) != nil }
        }
        if let unique {
            keyColumns = unique.compactMap { table.column(forAttribute: $0).flatMap(index) }
            keyIsRowKey = false
        } else {
            guard !diffTable.keyColumns.isEmpty else { return nil }
            keyColumns = diffTable.keyColumns.map(Int32.init)
            keyIsRowKey = true
        }
    }

    /// The labels of every entity table of `schema` the diff reads, by table name.
    static func of(_ schema: StoreSchema, tables: [DeltaTable]) -> [String: ChangeLabels] {
        var labels: [String: ChangeLabels] = [:]
        for table in schema.tables {
            guard let diffTable = tables.first(where: { $0.name == table.name }), let made = ChangeLabels(table, diffTable: diffTable)
            else { continue }
            labels[table.name] = made
        }
        return labels
    }

    /// The member a row belongs to.
    func member(_ row: StoreConnection.Row) -> Int {
        guard let entityColumn else { return 0 }
        return member(named: row.value(Int(entityColumn)))
    }

    /// The member an entity column's value names: Core Data's entity number, or the plain layout's name.
    func member(named value: DeltaValue) -> Int {
        switch value {
        case .integer(let number): entityNumbers[number] ?? 0
        case .text(let name): members.firstIndex(of: name) ?? 0
        default: 0
        }
    }

    /// A row's name in a report: `AB1 0AA`, `Kent / Dover`, or `Z_PK 12`.
    func key(_ row: StoreConnection.Row) -> String {
        let values = keyColumns.map { Self.text(row.value(Int($0))) }.joined(separator: " / ")
        return keyIsRowKey ? "\(keyColumns.map { columnNames[Int($0)] }.joined(separator: "/")) \(values)" : values
    }

    /// A stored value as a report shows it.
    static func text(_ value: DeltaValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .text(let text): text
        case .blob(let bytes): "x'" + bytes.prefix(32).map { String(format: "%02x", $0) }.joined() + (bytes.count > 32 ? "…'" : "'")
        }
    }
}

/// The changes of one entity table as a diff finds them, per member entity: counts, sample keys,
/// and up to ``rowLimit`` changed rows with old and new values.
struct ChangeTally: Sendable {
    let labels: ChangeLabels
    var rowLimit = 0
    private(set) var counts: [[Int]]
    private(set) var samples: [[[String]]]
    private(set) var rows: [[ChangedRow]]

    init(labels: ChangeLabels, rowLimit: Int = 0) {
        self.labels = labels
        self.rowLimit = rowLimit
        counts = Array(repeating: [0, 0, 0], count: labels.members.count)
        samples = Array(repeating: [[], [], []], count: labels.members.count)
        rows = Array(repeating: [], count: labels.members.count)
    }

    /// A row only in the later release.
    mutating func added(_ row: StoreConnection.Row) { count(0, row) }

    /// A row only in the earlier release.
    mutating func removed(_ row: StoreConnection.Row) { count(1, row) }

    /// A row in both whose `columns` differ.
    mutating func changed(new: StoreConnection.Row, old: StoreConnection.Row, columns: [Int]) {
        let member = count(2, new)
        guard rows[member].count < rowLimit else { return }
        rows[member].append(
            ChangedRow(
                key: labels.key(new),
                columns: columns.map { column in
                    ChangedRow.Column(
                        name: labels.columnNames[column], old: ChangeLabels.text(old.value(column)),
                        new: ChangeLabels.text(new.value(column)))
                }))
    }

    @discardableResult
    private mutating func count(_ kind: Int, _ row: StoreConnection.Row) -> Int {
        let member = labels.member(row)
        counts[member][kind] += 1
        if samples[member][kind].count < ChangeReport.sampleCount { samples[member][kind].append(labels.key(row)) }
        return member
    }

    /// Adds the tally of the table's next part of keys (the upper half of a split diff).
    mutating func append(_ other: ChangeTally) {
        for member in counts.indices {
            for kind in 0..<3 {
                counts[member][kind] += other.counts[member][kind]
                samples[member][kind] = Array((samples[member][kind] + other.samples[member][kind]).prefix(ChangeReport.sampleCount))
            }
            rows[member] = Array((rows[member] + other.rows[member]).prefix(rowLimit))
        }
    }

    /// Fills the counts, samples and rows of the table's entities in `entities`.
    func fill(_ entities: inout [String: EntityChanges]) {
        for (member, name) in labels.members.enumerated() {
            guard var entity = entities[name] else { continue }
            entity.added += counts[member][0]
            entity.removed += counts[member][1]
            entity.changed += counts[member][2]
            for (kind, key) in [(0, EntityChanges.Kind.added), (1, .removed), (2, .changed)] where !samples[member][kind].isEmpty {
                entity.samples[key, default: []].append(contentsOf: samples[member][kind])
            }
            entity.changedRows += rows[member]
            entities[name] = entity
        }
    }
}
