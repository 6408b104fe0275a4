extension CoreDataSchema {
    /// Each table's dump for ``ContentDigest``: its columns in table order, rows by key.
    package var contentDumps: [(name: String, select: String)] {
        tables.map { table in
            (table.name, "SELECT \(table.columns.map(\.name).joined(separator: ", ")) FROM \(table.name) ORDER BY Z_PK")
        }
            + joinTables.map { join in
                let names = join.columns.map(\.name)
                return (join.name, "SELECT \(names.joined(separator: ", ")) FROM \(join.name) ORDER BY \(names[0]), \(names[1])")
            }
    }
}
