import Foundation
package import GRDB

extension ContentDigest {
    /// The digest of a store's entity and join tables as `schema` lays them out (``compute(_:tables:known:)``).
    /// - Parameter known: table name → digest of tables already hashed while loading; the rest are read back.
    package static func compute(_ db: Database, schema: StoreSchema, known: [String: Data] = [:]) throws -> String {
        var tables: [(name: String, select: String)] = schema.tables.map { table in
            let columns = table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
            return (table.name, "SELECT \(columns) FROM \(quoteIdentifier(table.name)) ORDER BY \(quoteIdentifier(table.keyColumn))")
        }
        tables += schema.joinTables.map { join in
            (
                join.name,
                "SELECT * FROM \(quoteIdentifier(join.name)) ORDER BY \(quoteIdentifier(join.sourceColumn)), \(quoteIdentifier(join.destinationColumn))"
            )
        }
        return try compute(db.storeConnection(), tables: tables, known: known)
    }
}
