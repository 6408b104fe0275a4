import Foundation
package import GRDB

/// The folder where Core Data keeps Binary values stored outside the file: `.<store name>_SUPPORT/_EXTERNAL_DATA`
/// beside the store (`Model.sqlite` → `.Model_SUPPORT/_EXTERNAL_DATA`), one file per value, named by
/// the reference the column holds (`02`, the name, a NUL; ``CoreDataValues``).
package enum ExternalDataFolder {
    /// The external data folder of the store at `path`.
    package static func url(forStore path: String) -> URL {
        let store = URL(fileURLWithPath: path)
        return store.deletingLastPathComponent()
            .appendingPathComponent(".\(store.deletingPathExtension().lastPathComponent)_SUPPORT")
            .appendingPathComponent("_EXTERNAL_DATA")
    }

    /// The names of the external files a store's columns refer to, sorted.
    /// - Parameter database: the schema name the store is attached as (`main`, `old`).
    package static func references(in db: Database, schema: StoreSchema, database: String = "main") throws -> [String] {
        var names = Set<String>()
        for table in schema.tables {
            for column in table.columns {
                guard case .attribute(let attribute) = column.kind, attribute.type == .binary, table.storedForms.covers(attribute) else {
                    continue
                }
                let sql =
                    "SELECT \(quoteIdentifier(column.name)) FROM \(database).\(quoteIdentifier(table.name)) WHERE substr(\(quoteIdentifier(column.name)), 1, 1) = x'02'"
                for bytes in try Data.fetchAll(db, sql: sql) {
                    names.insert(String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self))
                }
            }
        }
        return names.sorted()
    }

    /// Copies the named files from beside `source` to beside `output`, replacing any there.
    /// - Throws: `StoreError` naming the files that cannot be copied.
    package static func copy(_ names: [String], from source: String, to output: String) throws(StoreError) {
        guard !names.isEmpty else { return }
        let from = url(forStore: source)
        let to = url(forStore: output)
        do {
            try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
            for name in names {
                let target = to.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
                try FileManager.default.copyItem(at: from.appendingPathComponent(name), to: target)
            }
        } catch {
            throw StoreError(.io, path: to.path, "cannot copy the external data files beside the new store: \(error.localizedDescription)")
        }
    }

    /// Copies every file of `source`'s folder beside `output`, when `source` has one.
    package static func copyAll(from source: String, to output: String) throws(StoreError) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url(forStore: source).path)) ?? []
        try copy(names.sorted(), from: source, to: output)
    }

    /// Removes the support folder of a temporary store, if it has one.
    package static func remove(forStore path: String) {
        try? FileManager.default.removeItem(at: url(forStore: path).deletingLastPathComponent())
    }
}
