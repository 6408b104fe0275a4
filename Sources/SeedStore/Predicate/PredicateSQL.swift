import SeedModel

/// A predicate compiled to an SQL `WHERE` clause over one entity table (aliased `t0`), with the
/// joins its key paths need and the values to bind. Values are always bound, never spliced.
///
/// To-one key paths become `LEFT JOIN`s; to-many key paths, `ANY`/`ALL`/`NONE`, aggregates and
/// `SUBQUERY` become correlated `EXISTS` or scalar subqueries over the to-many's storage (the
/// destination's foreign-key column, or the join table), so the indexes on those columns are used
/// as a hand-written query would use them.
struct PredicateSQL {
    var whereClause: String
    var arguments: [StoreValue]
    var joins: [String]

    /// Compiles a predicate whose variables are already substituted.
    /// - Parameters:
    ///   - storeIdentifier: the identifier of the store the query runs in: an object argument
    ///     (`SELF == %@`) matches only there.
    /// - Throws: ``FetchPredicateError`` for an unknown key path or a leftover variable.
    init(
        _ predicate: FetchPredicate, table: EntityTable, schema: StoreSchema, format: String, storeIdentifier: String? = nil
    ) throws(FetchPredicateError) {
        var compiler = PredicateCompiler(schema: schema, table: table, format: format, storeIdentifier: storeIdentifier)
        whereClause = try compiler.compile(predicate)
        arguments = compiler.arguments
        joins = compiler.joins
    }

    /// The SQL expression of a sort key or key path, adding any join it needs.
    static func column(for keyPath: [String], table: EntityTable, schema: StoreSchema, joins: inout [String]) throws(FetchPredicateError)
        -> String
    {
        var compiler = PredicateCompiler(schema: schema, table: table, format: keyPath.joined(separator: "."), storeIdentifier: nil)
        compiler.joins = joins
        let sql = try compiler.numeric(.keyPath(keyPath))
        joins = compiler.joins
        return sql
    }
}
