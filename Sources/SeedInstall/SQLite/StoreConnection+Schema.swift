extension StoreConnection {
    /// The tables but SQLite's own (`sqlite_%`, such as `sqlite_stat1`), in name order, each with its
    /// columns in table order and each column's place in the primary key (from 1; 0 when not in it).
    package func tables() throws(StoreError) -> [(name: String, columns: [String], keyPositions: [Int64])] {
        var tables: [(name: String, columns: [String], keyPositions: [Int64])] = []
        for name in try strings(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        {
            var table = (name: name, columns: [String](), keyPositions: [Int64]())
            try forEachRow("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(name)]) { row in
                guard case .text(let column) = row.value(0), case .integer(let position) = row.value(1) else { return }
                table.columns.append(column)
                table.keyPositions.append(position)
            }
            tables.append(table)
        }
        return tables
    }

    /// Whether the main database has a table of this name.
    package func tableExists(_ name: String) throws(StoreError) -> Bool {
        try !rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]).isEmpty
    }
}
