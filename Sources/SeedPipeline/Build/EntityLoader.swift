import Foundation
import GRDB
import SeedModel
import SeedStore

/// Loads one CSV file into one entity's table: the measured hot loop of a build.
///
/// Values are converted from the reader's bytes and bound with the SQLite C functions, without a
/// `String` per field. A table stored `WITHOUT ROWID` is filled directly while the input arrives in
/// key order (the real postcode directory does), since appending in key order is fast; from the first
/// key out of order on, rows go to a staging table that is copied across `ORDER BY` the key at the end
/// (loading shuffled rows straight into the keyed table measured 3–4× slower).
final class EntityLoader {
    struct Result {
        var rowsRead = 0
        var rowsLoaded = 0
        /// Keys of rows that went to the staging table, if any did.
        var stagedRows = 0
    }

    private let table: EntityTable
    private let mapping: ColumnMapping
    private let file: String
    private let header: [String]
    private let references: [String: [String: Int64]]
    private let sourceFiles: [String: String]
    private let rejects: RejectCollector

    init(
        table: EntityTable, mapping: ColumnMapping, file: String, header: [String],
        references: [String: [String: Int64]], sourceFiles: [String: String], rejects: RejectCollector
    ) {
        self.table = table
        self.mapping = mapping
        self.file = file
        self.header = header
        self.references = references
        self.sourceFiles = sourceFiles
        self.rejects = rejects
    }

    /// The columns the `INSERT` names, in parameter order.
    var insertColumns: [String] {
        table.columns.compactMap { column in
            if case .primaryKey = column.kind { return nil }
            return column.name
        }
    }

    var stagingTable: String { "staging_\(table.name)" }

    func load(_ reader: CSVReader, into db: Database, progress: (Int, Int) -> Void) throws -> Result {
        let columns = insertColumns.map(quoteIdentifier).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")
        let direct = try BulkInsert(db, sql: "INSERT INTO \(quoteIdentifier(table.name)) (\(columns)) VALUES (\(placeholders))")
        var staging: BulkInsert?
        var keyTracker = keyFeed.map { KeyOrderTracker(feed: $0.feed, field: $0.field) }
        var result = Result()
        var values = RowValues(mapping: mapping)
        var lastProgress = 0
        while let record = try nextRecord(reader, result: &result) {
            result.rowsRead += 1
            if result.rowsRead - lastProgress >= 65_536 {
                lastProgress = result.rowsRead
                progress(result.rowsRead, reader.bytesRead)
            }
            if let failure = convert(record, into: &values) {
                rejects.add(RowError(
                    file: file, line: record.line, column: failure.field.map { $0 + 1 },
                    field: failure.field.map { header[$0] }, reason: failure.reason,
                    record: String(decoding: record.rawBytes, as: UTF8.self)))
                continue
            }
            var target = direct
            if let observation = keyTracker?.observe(record, values: values) {
                switch observation {
                case .ascending:
                    break
                case .duplicate(let previousLine):
                    let field = keyTracker!.field
                    rejects.add(RowError(
                        file: file, line: record.line, column: field + 1, field: header[field],
                        reason: "duplicate \(table.name).\(table.keyColumn) \"\(record.string(field))\": line \(previousLine) has it already; keys must be unique",
                        record: String(decoding: record.rawBytes, as: UTF8.self)))
                    continue
                case .staging:
                    if staging == nil {
                        try db.execute(sql: "CREATE TEMP TABLE \(quoteIdentifier(stagingTable)) AS SELECT \(columns) FROM \(quoteIdentifier(table.name)) WHERE 0")
                        staging = try BulkInsert(db, sql: "INSERT INTO temp.\(quoteIdentifier(stagingTable)) (\(columns)) VALUES (\(placeholders))")
                    }
                    target = staging!
                    result.stagedRows += 1
                }
            }
            values.bind(to: target, record: record)
            if case .constraintViolation(let message) = try target.step() {
                rejects.add(RowError(
                    file: file, line: record.line, column: nil, field: nil,
                    reason: "the row breaks a constraint (\(message)); fix the value or the model",
                    record: String(decoding: record.rawBytes, as: UTF8.self)))
                continue
            }
            result.rowsLoaded += 1
        }
        progress(result.rowsRead, reader.bytesRead)
        return result
    }

    /// The next well-formed record; a record with the wrong field count or bad bytes is rejected and skipped,
    /// while a structural error (an unterminated quote) stops the build, since record bounds are then unknown.
    private func nextRecord(_ reader: CSVReader, result: inout Result) throws -> CSVRecord? {
        while true {
            do {
                return try reader.next()
            } catch where error.isRecoverable {
                result.rowsRead += 1
                rejects.add(RowError(
                    file: file, line: error.line, column: error.column, field: error.field, reason: error.reason,
                    record: String(decoding: reader.lastRecordBytes, as: UTF8.self)))
            } catch {
                throw IngestError(.badData, file: file, line: error.line, column: error.column, field: error.field, error.reason)
            }
        }
    }

    /// The feed and CSV field of the key attribute of a `WITHOUT ROWID` table.
    private var keyFeed: (feed: Int, field: Int)? {
        guard case .attribute(let key) = table.primaryKey else { return nil }
        for (index, feed) in mapping.feeds.enumerated() {
            if case .attribute(let field, let attribute) = feed, attribute.name == key { return (index, field) }
        }
        return nil
    }

    /// Converts every fed field of a record; the first failure, if any.
    private func convert(_ record: CSVRecord, into values: inout RowValues) -> (field: Int?, reason: String)? {
        for (index, feed) in mapping.feeds.enumerated() {
            switch feed {
            case .attribute(let field, let attribute):
                if record.isEmpty(field) {
                    if attribute.isOptional {
                        values.set(index, .null)
                    } else if values.hasDefault(index) {
                        values.useDefault(index)
                    } else {
                        return (field, "\(table.name).\(attribute.name) is required but the field is empty; fill it in")
                    }
                    continue
                }
                let converted = record.withField(field) { FieldConverter.convert($0, as: attribute.type) }
                switch converted {
                case .success(let value): values.set(index, .value(value))
                case .failure(let failure): return (field, "\(table.name).\(attribute.name): \(failure.reason)")
                }
            case .reference(let field, let relationship, let destination, let key):
                if record.isEmpty(field) {
                    if relationship.isOptional { values.set(index, .null); continue }
                    return (field, "\(table.name).\(relationship.name) is required but the field is empty; give a \(destination).\(key.name) value")
                }
                let lookup = record.withField(field) { bytes -> String? in
                    guard case .success(let value) = FieldConverter.convert(bytes, as: key.type) else { return nil }
                    return value.lookupKey(fieldBytes: bytes)
                }
                guard let lookup, let primaryKey = references[destination]?[lookup] else {
                    let text = record.string(field)
                    return (field, "\(table.name).\(relationship.name): no \(destination) with \(key.name) \"\(text)\" in \(sourceFiles[destination] ?? destination); add it there or fix this value")
                }
                values.set(index, .value(.integer(primaryKey)))
            case .absent, .absentReference:
                continue
            }
        }
        return nil
    }
}
