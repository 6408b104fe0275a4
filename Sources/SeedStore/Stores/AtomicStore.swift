import Foundation
internal import GRDB
import SeedModel

/// Core Data's atomic store types, binary and XML: the whole store is held in memory (an in-memory
/// SQLite database, so fetches work as for the other types) and written as one property-list file
/// on every save, under a temporary name, synced and renamed into place.
///
/// The file holds the metadata, the configuration's embedded model and every table's rows:
/// `{"metadata": JSON text, "configuration": …, "model": JSON text, "tables": {name: [row]}}`,
/// each row a dictionary of column → value with nil values left out.
public final class AtomicStore: SQLiteStore {
    private var pendingFile: String?

    override init(description: StoreDescription, model: Model) throws {
        precondition(description.type == .binary || description.type == .xml, "AtomicStore holds the binary and XML types")
        guard let url = description.url else {
            throw StoreError(.refused, path: description.displayName, "a \(description.type.rawValue) store needs a file URL")
        }
        let exists = FileManager.default.fileExists(atPath: url.path)
        if !exists, description.isReadOnly {
            throw StoreError(.notFound, path: url.path, "no such store; a read-only store must exist before it is added")
        }
        try super.init(description: description, model: model)
        if exists {
            try load(from: url)
        } else {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try queue.inDatabase { db in try writeFile(db) }
            try didCommit()
        }
    }

    private func load(from url: URL) throws {
        let plist = try PropertyListStoreFile.readPropertyList(at: url.path)
        metadata = try PropertyListStoreFile.metadata(in: plist, path: url.path)
        guard let tables = plist["tables"] as? [String: [[String: Any]]] else {
            throw StoreError(
                .notASeedStore, path: url.path, "the store file's tables are not lists of rows; it is damaged or not written by seedbuild")
        }
        let columnTypes = self.columnTypes()
        try queue.inDatabase { db in
            try db.inTransaction {
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                for (table, rows) in tables.sorted(by: { $0.key < $1.key }) {
                    guard let types = columnTypes[table] else {
                        throw StoreError(
                            .notASeedStore, path: url.path,
                            "the file has a table \(table) that the \(schema.configuration) configuration does not")
                    }
                    for row in rows {
                        let names = row.keys.sorted()
                        var values: [DatabaseValue] = []
                        for name in names {
                            guard let type = types[name] else {
                                throw StoreError(
                                    .notASeedStore, path: url.path, "table \(table) has a column \(name) that the model does not")
                            }
                            values.append(Self.databaseValue(row[name]!, type: type))
                        }
                        try db.execute(
                            sql:
                                "INSERT INTO \(quoteIdentifier(table)) (\(names.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))",
                            arguments: StatementArguments(values))
                    }
                }
                try metadata.write(to: db)
                return .commit
            }
        }
    }

    /// Column name → SQLite type for every table the file may hold.
    private func columnTypes() -> [String: [String: String]] {
        var types: [String: [String: String]] = [:]
        for table in schema.tables {
            types[table.name] = Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.type) })
        }
        for join in schema.joinTables {
            types[join.name] = ["source": "INTEGER", "destination": "INTEGER", "position": "INTEGER"]
        }
        types[ObjectVersionTable.name] = ["entity": "TEXT", "key": "ANY", "version": "INTEGER"]
        return types
    }

    private static func databaseValue(_ value: Any, type: String) -> DatabaseValue {
        switch value {
        case let text as String: return text.databaseValue
        case let data as Data: return data.databaseValue
        case let number as NSNumber:
            if type == "REAL" { return number.doubleValue.databaseValue }
            if type == "INTEGER" { return number.int64Value.databaseValue }
            let double = number.doubleValue
            return double.rounded() == double && abs(double) < 9e15 ? number.int64Value.databaseValue : double.databaseValue
        default: return .null
        }
    }

    override func willCommit(_ db: Database) throws {
        try writeFile(db)
    }

    override func didCommit() throws {
        guard let pendingFile, let url = storeDescription.url else { return }
        self.pendingFile = nil
        try AtomicFile.commit(pendingFile, to: url.path, mode: 0o644)
    }

    override func didRollBack() {
        if let pendingFile { try? FileManager.default.removeItem(atPath: pendingFile) }
        pendingFile = nil
    }

    /// Serializes every table and the metadata to a temporary file beside the store's.
    private func writeFile(_ db: Database) throws {
        guard let url = storeDescription.url else { return }
        var tables: [String: [[String: Any]]] = [:]
        for name in schema.tables.map(\.name) + schema.joinTables.map(\.name) + [ObjectVersionTable.name] {
            var rows: [[String: Any]] = []
            let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \(quoteIdentifier(name))")
            while let row = try cursor.next() {
                var object: [String: Any] = [:]
                for (column, value) in row {
                    switch value.storage {
                    case .null: continue
                    case .int64(let number): object[column] = NSNumber(value: number)
                    case .double(let number): object[column] = NSNumber(value: number)
                    case .string(let text): object[column] = text
                    case .blob(let data): object[column] = data
                    }
                }
                rows.append(object)
            }
            tables[name] = rows
        }
        let currentMetadata = try StoreMetadata.read(from: db)
        let plist: [String: Any] = [
            "metadata": JSONValue.object(currentMetadata.values).jsonText,
            "configuration": schema.configuration,
            "model": String(decoding: try schema.model.canonicalJSON(configuration: schema.configuration), as: UTF8.self),
            "tables": tables,
        ]
        let format: PropertyListSerialization.PropertyListFormat = storeDescription.type == .xml ? .xml : .binary
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
        let temporary = AtomicFile.temporaryPath(for: url.path)
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            throw AtomicFile.ioError(temporary, "cannot write the store file")
        }
        pendingFile = temporary
    }
}
