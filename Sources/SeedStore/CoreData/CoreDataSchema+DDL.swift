import SeedInstall

extension CoreDataSchema {
    /// The fixed tables, with Core Data's exact DDL.
    package static let fixedTableStatements = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// `CREATE TABLE` statements as Core Data writes them, fixed tables first.
    package var createTableStatements: [String] {
        Self.fixedTableStatements
            + tables.map { table in
                "CREATE TABLE \(table.name) ( Z_PK INTEGER PRIMARY KEY, "
                    + table.columns.filter { $0.kind != .primaryKey }.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + " )"
            }
            + joinTables.map(\.createStatement)
            + joinTables.compactMap(\.viewStatement)
    }
}
