import Foundation

extension SetDigest {
    /// The tables the set digest covers, in name order, with their columns in table order: every
    /// table in `sqlite_master` but SQLite's own (`sqlite_%`, such as `sqlite_stat1`).
    package static func tables(of store: StoreConnection) throws(StoreError) -> [(name: String, columns: [String])] {
        var tables: [(name: String, columns: [String])] = []
        for name in try store.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name") {
            tables.append((name, try store.strings("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(name)])))
        }
        return tables
    }

    /// The digest of a whole store, read row by row: every row of every table ``tables(of:)`` lists,
    /// and every `sqlite_master` row that has SQL (tables, indexes, views, triggers; not SQLite's
    /// own). A release with no base, `verify`, and the device's full check compute it so; a release
    /// that follows a base updates its base's (``Delta/update(_:base:)``).
    package static func compute(_ store: StoreConnection) throws(StoreError) -> SetDigest {
        var digest = SetDigest()
        for table in try tables(of: store) {
            let select = "SELECT \(table.columns.map(quoted).joined(separator: ", ")) FROM \(quoted(table.name))"
            try store.forEachRow(select) { row in
                digest.insert(Element.row(table: table.name, columns: table.columns, values: (0..<row.count).map(row.value)))
            }
        }
        try store.forEachRow("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") { row in
            let text = { (column: Int) -> String in if case .text(let value) = row.value(column) { value } else { "" } }
            digest.insert(Element.schema(type: text(0), name: text(1), table: text(2), sql: text(3)))
        }
        return digest
    }

    /// The digest of the store at `path`.
    package static func compute(of path: String) throws(StoreError) -> SetDigest {
        try compute(StoreConnection(path: path, mode: .immutable))
    }

    private static func quoted(_ name: String) -> String {
        "\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\""
    }
}
