internal import GRDB
import SeedModel

extension LayoutCopy {
    /// Copies the tables of Core Data's persistent history (``CoreDataConventions/HistoryEntity``)
    /// from the attached `old` database as they are: the same `CREATE TABLE` and `CREATE INDEX`
    /// statements, every row. Their rows name the model's rows by entity number and `Z_PK`, which
    /// both layouts keep, so nothing in them changes. An entity without its table (none in the
    /// store) has none copied; its `Z_PRIMARYKEY` row is kept by the conventions all the same.
    /// - Throws: `StoreError` (`refused`) when the new layout already has a table of that name (a
    ///   model entity named as the history table is, in the plain layout).
    func history(_ entities: [CoreDataConventions.HistoryEntity], source: String) throws {
        for entity in entities {
            let table = entity.tableName
            guard
                let create = try String.fetchOne(
                    db, sql: "SELECT sql FROM old.sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
            else {
                continue
            }
            if let taken = try String.fetchOne(
                db, sql: "SELECT name FROM main.sqlite_master WHERE name = ? COLLATE NOCASE", arguments: [table])
            {
                throw StoreError(
                    .refused, path: source,
                    "the \(new.layout.name) layout names a table \(taken), the name of the store's persistent-history table \(table) (Z_PRIMARYKEY \(entity.number) \(entity.name)), "
                        + "and one store cannot hold both; convert a copy of the store without its persistent history (drop \(table) and that Z_PRIMARYKEY row)"
                )
            }
            try db.execute(sql: create)
            try db.execute(sql: "INSERT INTO main.\(quoteIdentifier(table)) SELECT * FROM old.\(quoteIdentifier(table))")
            let indexes = try String.fetchAll(
                db, sql: "SELECT sql FROM old.sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid",
                arguments: [table])
            for index in indexes { try db.execute(sql: index) }
        }
    }
}
