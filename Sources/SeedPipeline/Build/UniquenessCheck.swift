import Foundation
import GRDB
import SeedModel
import SeedStore

/// After an entity is loaded: merges its staging table in key order and enforces its uniqueness
/// constraints, keeping the first row of each duplicate group and rejecting the later ones by line.
///
/// Duplicates among rows loaded in key order were already rejected as they arrived; the rest are
/// found with SQL, and their lines by reading the file once more — only when duplicates exist.
struct UniquenessCheck {
    let table: EntityTable
    let mapping: ColumnMapping
    let file: String
    let header: [String]
    let maxRecordBytes: Int

    /// Returns how many loaded rows were removed as duplicates.
    /// - Parameter proven: a constraint the loader proved unique while the rows went in (they came in its order).
    /// - Parameter duplicateKeyLines: lines of out-of-order rows the table refused as duplicates of
    ///   `key` (its key, or in Core Data's layout the attribute of its unique index); they are
    ///   rejected here, naming the line that holds the key.
    func run(
        _ db: Database, stagingTable: String?, rejects: RejectCollector, proven: [String]? = nil, duplicateKeyLines: [Int] = [],
        key trackedKey: String? = nil
    ) throws -> Int {
        var removed = 0
        var groups: [[String]: [String]] = [:] // constraint attributes → duplicate keys (``KeyPart``)
        if !duplicateKeyLines.isEmpty, let key = trackedKey {
            groups[[key]] = try keyValues(atLines: Set(duplicateKeyLines), key: key, rejects: rejects)
        }
        if let stagingTable {
            let key = quoteIdentifier(table.keyColumn)
            let staging = "temp.\(quoteIdentifier(stagingTable))"
            let main = "main.\(quoteIdentifier(table.name))"
            let duplicates = try parts(of: [table.keyColumn]).keys(
                db,
                sql: """
                    SELECT \(key) FROM \(staging) GROUP BY \(key) HAVING count(*) > 1
                    UNION SELECT s.\(key) FROM \(staging) s WHERE EXISTS (SELECT 1 FROM \(main) m WHERE m.\(key) = s.\(key))
                    """)
            if !duplicates.isEmpty {
                try db.execute(
                    sql: """
                        DELETE FROM \(staging) WHERE \(key) IN (SELECT \(key) FROM \(main))
                           OR rowid NOT IN (SELECT min(rowid) FROM \(staging) GROUP BY \(key))
                        """)
                removed += db.changesCount
                groups[[table.keyColumn], default: []] += duplicates
            }
            let columns = table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
            try db.execute(sql: "INSERT INTO \(main) (\(columns)) SELECT \(columns) FROM \(staging) ORDER BY \(key)")
            try db.execute(sql: "DROP TABLE \(staging)")
        }
        for constraint in table.entity.uniquenessConstraints where constraint != [table.keyColumn] && constraint != proven {
            let columns = constraint.map { quoteIdentifier(table.columnName(for: $0)) }
            let list = columns.joined(separator: ", ")
            let notNull = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
            let duplicates = try parts(of: constraint).keys(
                db,
                sql: """
                    SELECT \(list) FROM \(quoteIdentifier(table.name)) WHERE \(notNull) GROUP BY \(list) HAVING count(*) > 1
                    """)
            guard !duplicates.isEmpty else { continue }
            let key = quoteIdentifier(table.keyColumn)
            try db.execute(
                sql: """
                    DELETE FROM \(quoteIdentifier(table.name)) WHERE \(notNull) AND \(key) NOT IN (
                      SELECT min(\(key)) FROM \(quoteIdentifier(table.name)) WHERE \(notNull) GROUP BY \(list))
                    """)
            removed += db.changesCount
            groups[constraint, default: []] += duplicates
        }
        for (constraint, values) in groups {
            try reportLines(constraint: constraint, duplicates: Set(values), rejects: rejects)
        }
        return removed
    }

    /// The key values of the given lines, read from the file again; a pipe cannot be read twice, so
    /// there each line is rejected as a duplicate without naming the other.
    private func keyValues(atLines lines: Set<Int>, key: String, rejects: RejectCollector) throws -> [String] {
        guard let (field, part) = fields(of: [key]).first else { return [] }
        guard isRegularFile else {
            for line in lines.sorted() {
                rejects.add(
                    RowError(
                        file: file, line: line, column: field + 1, field: header[field],
                        reason:
                            "duplicate \(name(of: [key])): an earlier row has it already (the input is a pipe, so its line cannot be named); keys must be unique",
                        record: ""))
            }
            return []
        }
        var values: [String] = []
        try rereadRecords { record in
            if lines.contains(record.line), let value = Self.key(record, field: field, part: part) { values.append(value) }
            return values.count < lines.count
        }
        return values
    }

    /// The CSV fields and key parts of a constraint's attributes, in its order (fewer when one has no column).
    private func fields(of constraint: [String]) -> [(field: Int, part: KeyPart)] {
        constraint.compactMap { name in
            for feed in mapping.feeds {
                if case .attribute(let field, let attribute) = feed, attribute.name == name {
                    return (field, KeyPart(attribute, in: table))
                }
            }
            return nil
        }
    }

    /// How the table keeps each of a constraint's properties (a to-one's column holds a number).
    private func parts(of constraint: [String]) -> [KeyPart] {
        constraint.map { name in
            table.entity.attribute(named: name).map { KeyPart($0, in: table) } ?? KeyPart(type: .integer64, keptAsCoreData: false)
        }
    }

    /// Whether the input can be read a second time (a pipe cannot).
    private var isRegularFile: Bool { CSVReader.canBeReadAgain(file) }

    /// Reads the file again, record by record, while `body` returns true; ragged records and bad
    /// bytes are skipped (the first pass rejected them already).
    private func rereadRecords(_ body: (CSVRecord) throws -> Bool) throws {
        let reader: CSVReader
        do { reader = try CSVReader(path: file, maxRecordBytes: maxRecordBytes) } catch { throw IngestError(error) }
        while true {
            let record: CSVRecord
            do {
                guard let next = try reader.next() else { return }
                record = next
            } catch  where error.isRecoverable {
                continue
            } catch {
                throw IngestError(error)
            }
            guard try body(record) else { return }
        }
    }

    /// A field's value as duplicate groups compare it (the key ``KeyPart`` makes of the stored
    /// value); nil when empty or no value of its type.
    private static func key(_ record: CSVRecord, field: Int, part: KeyPart) -> String? {
        guard !record.isEmpty(field) else { return nil }
        var key: [UInt8] = []
        guard record.withField(field, { part.appendKey(of: $0, to: &key) }) == nil else { return nil }
        return String(decoding: key, as: UTF8.self)
    }

    /// `Postcode.postcode`, or `Postcode.(name, state)` for a compound constraint.
    private func name(of constraint: [String]) -> String {
        "\(table.entity.name)." + (constraint.count == 1 ? constraint[0] : "(" + constraint.joined(separator: ", ") + ")")
    }

    /// Reads the file again to name the lines of each duplicate group: the first kept, the later rejected.
    private func reportLines(constraint: [String], duplicates: Set<String>, rejects: RejectCollector) throws {
        let fields = fields(of: constraint)
        guard fields.count == constraint.count, let firstField = fields.first?.field else { return }
        guard isRegularFile else {
            // A pipe cannot be read twice: reject each duplicate value without naming its lines.
            for value in duplicates.sorted() {
                rejects.add(
                    RowError(
                        file: file, line: 0, column: firstField + 1, field: header[firstField],
                        reason:
                            "duplicate \(name(of: constraint)) \"\(value.replacingOccurrences(of: "\u{1F}", with: ", "))\": later rows with it were dropped (the input is a pipe, so their lines cannot be named)",
                        record: ""))
            }
            return
        }
        let alreadyRejected = rejects.rejectedLines[file] ?? []
        var firstLine: [String: Int] = [:]
        try rereadRecords { record in
            guard !alreadyRejected.contains(record.line) else { return true }
            var parts: [String] = []
            for (field, keyPart) in fields {
                guard let part = Self.key(record, field: field, part: keyPart) else { return true }
                parts.append(part)
            }
            let tuple = parts.joined(separator: "\u{1F}")
            guard duplicates.contains(tuple) else { return true }
            if let first = firstLine[tuple] {
                let shown = parts.joined(separator: ", ")
                rejects.add(
                    RowError(
                        file: file, line: record.line, column: firstField + 1, field: header[firstField],
                        reason:
                            "duplicate \(name(of: constraint)) \"\(shown)\": line \(first) has it already; the uniqueness constraint allows one",
                        record: String(decoding: record.rawBytes, as: UTF8.self)))
            } else {
                firstLine[tuple] = record.line
            }
            return true
        }
    }
}
