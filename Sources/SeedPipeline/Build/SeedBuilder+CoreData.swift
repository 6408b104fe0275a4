import GRDB
import SeedModel
import SeedStore

extension SeedBuilder {
    /// Fills the columns Core Data keeps beside a to-one, once every table is loaded: the
    /// destination's entity number (`Z<n>_<REL>`, for a destination with sub-entities) and the position
    /// in the inverse ordered to-many (`Z_FOK_<REL>`, in row order, from 1).
    static func fillCoreDataColumns(_ schema: StoreSchema, db: Database) throws {
        for table in schema.tables {
            let name = quoteIdentifier(table.name)
            for column in table.columns {
                switch column.kind {
                case .toOneEntity(let relationship):
                    guard let destination = schema.table(for: relationship.destination) else { continue }
                    let reference = quoteIdentifier(table.columnName(for: relationship.name))
                    try db.execute(
                        sql: """
                            UPDATE \(name) SET \(quoteIdentifier(column.name)) = (
                              SELECT d.Z_ENT FROM \(quoteIdentifier(destination.name)) AS d WHERE d.Z_PK = \(name).\(reference))
                            WHERE \(reference) IS NOT NULL
                            """)
                case .toOneOrder(let relationship):
                    let reference = quoteIdentifier(table.columnName(for: relationship.name))
                    try db.execute(
                        sql: """
                            UPDATE \(name) SET \(quoteIdentifier(column.name)) = r.n FROM (
                              SELECT Z_PK AS pk, row_number() OVER (PARTITION BY \(reference) ORDER BY Z_PK) AS n FROM \(name) WHERE \(reference) IS NOT NULL
                            ) AS r WHERE \(name).Z_PK = r.pk
                            """)
                default:
                    continue
                }
            }
        }
    }

    /// The self-referential pairs whose join-table name is not certain: a view reads the table under
    /// the other name (docs/store-format.md, "Self-referential join tables").
    static func uncertainJoinTables(_ layout: CoreDataSchema?) -> [BuiltStore.UncertainJoinTable] {
        (layout?.joinTables ?? []).compactMap { join in
            join.alsoReadableAs.map { view in
                let sides = ["\(join.relationship.entity).\(join.relationship.name)", "\(join.inverse.entity).\(join.inverse.name)"]
                return BuiltStore.UncertainJoinTable(relationships: sides.sorted(), table: join.name, view: view)
            }
        }
    }
}
