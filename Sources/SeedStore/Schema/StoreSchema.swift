package import GRDB
import SeedModel

/// How one model configuration is laid out in SQLite: tables, columns, keys, join tables, indexes.
///
/// One table per entity, named as the entity; one column per persistent attribute, named as the
/// attribute; an `INTEGER PRIMARY KEY` named ``Model/primaryKeyColumn``; each stored to-one
/// relationship as an integer column named as the relationship, referencing the destination's
/// primary key and indexed. An entity whose objects are identified by a single-attribute
/// uniqueness constraint and that nothing references is stored `WITHOUT ROWID`, keyed by that
/// attribute, so the key is not stored twice (see `docs/store-format.md`). An inheritance tree is
/// one table named as its root, holding the rows of every entity of the tree, with the columns of
/// all of them and ``Model/entityColumn`` naming each row's entity, as Core Data stores a tree.
package struct StoreSchema: Sendable {
    /// The model restricted to the configuration: what the store holds and embeds.
    package let model: Model
    /// The model the schema was laid out from: the coordinator's, whose every entity hash the
    /// store is stamped with (Core Data's rule; see ``SeedModel/Model/fits(storedHashes:)``).
    package let wholeModel: Model
    package let configuration: String
    package let layout: StoreLayout
    /// Core Data's layout of the configuration, when the store is in that layout.
    package let coreData: CoreDataSchema?
    /// The conventions of Core Data's layout the store follows: a Core Data store's, or those a plain
    /// store converted from one remembers (nil for other plain stores).
    package let coreDataConventions: CoreDataConventions?
    /// Entity tables in load order: every table a to-one column references comes before it.
    package let tables: [EntityTable]
    package let joinTables: [JoinTable]
    /// Where each relationship is stored, by table (root entity) name.
    let storage: RelationshipStorage
    /// Entity name → the name of the table holding its rows (its root's).
    private let tableNames: [String: String]

    /// Lays out the entities of one configuration.
    /// - Throws: ``ModelError`` when the configuration does not exist or its relationships form a cycle
    ///   of required to-one references that no load order can satisfy.
    /// - Parameter conventions: an existing store's (``CoreDataConventions/read(from:)``). In Core
    ///   Data's layout, its entity numbers and names (nil: a new store's). In the plain layout, given
    ///   for a store converted from Core Data's: it then keeps Core Data's dates and external-storage
    ///   references (``StoredForms/converted``), every row's `Z_PK`, and both orders of a many-to-many.
    package init(
        model: Model, configuration: String, layout storeLayout: StoreLayout = .plain, conventions: CoreDataConventions? = nil
    ) throws(ModelError) {
        let restricted = try model.restricted(to: configuration)
        try Self.checkStorable(restricted)
        self.model = restricted
        self.wholeModel = model
        self.configuration = configuration
        self.layout = storeLayout
        let trees = try TreeLayout(model: restricted)
        self.tableNames = trees.tableNames
        let layout = trees.layout
        guard storeLayout == .plain else {
            let coreData = try CoreDataSchema(model: model, configuration: configuration, conventions: conventions ?? .current)
            self.coreData = coreData
            self.coreDataConventions = coreData.conventions
            var tables: [String: EntityTable] = [:]
            for table in coreData.tables {
                guard let entity = layout.entity(named: table.root) else { continue }
                tables[table.root] = EntityTable(
                    coreData: table, entity: entity, kinds: trees.kinds, model: model, entityNumbers: coreData.entityNumbers)
            }
            let storage = RelationshipStorage(coreData: coreData, layout: layout, model: model, tables: tables)
            self.storage = storage
            self.tables = try Self.loadOrder(tables, model: restricted)
            self.joinTables = storage.joinTables
            return
        }
        self.coreData = nil
        self.coreDataConventions = conventions
        let converted = conventions != nil
        let storage = RelationshipStorage(model: layout, keepsBothOrders: converted)
        self.storage = storage
        let referenced = storage.referencedEntities
        var tables: [String: EntityTable] = [:]
        for entity in layout.entities {
            let members = trees.members[entity.name] ?? [entity.name]
            // A tree's rows are told apart by their entity column, and a converted store's keep their
            // Z_PK, so such tables keep a rowid key.
            tables[entity.name] = EntityTable(
                entity: entity, members: members, kinds: trees.kinds, storage: storage,
                referenced: referenced.contains(entity.name) || members.count > 1 || converted, storedForms: converted ? .converted : [])
        }
        self.tables = try Self.loadOrder(tables, model: restricted)
        self.joinTables = storage.joinTables
    }

    /// Refuses what this layout cannot store yet, naming the entity and property.
    private static func checkStorable(_ model: Model) throws(ModelError) {
        var diagnostics: [ModelDiagnostic] = []
        for entity in model.entities {
            for attribute in entity.attributes where attribute.type == .composite && !attribute.isTransient {
                diagnostics.append(
                    ModelDiagnostic(
                        .error,
                        "a composite attribute cannot be stored until Core Data's layout for it is known; "
                            + "split it into attributes or mark it transient",
                        source: entity.origin ?? model.source, entity: entity.name, property: attribute.name))
            }
        }
        if !diagnostics.isEmpty { throw .invalid(diagnostics) }
    }

    /// The table holding an entity's rows: its own, or its inheritance tree's.
    package func table(for entity: String) -> EntityTable? {
        let name = tableNames[entity] ?? entity
        return tables.first { $0.entity.name == name }
    }

    /// How many rows of exactly this entity (not its sub-entities) the store holds.
    package func rowCount(of entity: String, in db: Database) throws -> Int64 {
        guard let table = table(for: entity) else { return 0 }
        guard table.isTree else { return try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table.name))") ?? 0 }
        return try Int64.fetchOne(
            db,
            sql:
                "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.entityColumn?.name ?? Model.entityColumn)) = ?",
            arguments: [table.entityValue(entity).databaseValue]) ?? 0
    }

    /// Whether rows keep their own version (Core Data's `Z_OPT`); else `seed_object_version` does.
    package var keepsVersionsInRows: Bool { tables.allSatisfy { $0.versionColumn != nil } && !tables.isEmpty }

    /// Settings a new store file takes before any table exists: Core Data's incremental auto-vacuum.
    package var fileSetupStatements: [String] { layout == .coreData ? ["PRAGMA auto_vacuum = 2"] : [] }

    /// Every entity the store holds, sub-entities included.
    package var entityNames: Set<String> { Set(tableNames.keys) }

    /// `CREATE TABLE` statements for every entity and join table, without secondary indexes.
    package var createTableStatements: [String] {
        if let coreData { return coreData.createTableStatements }
        return tables.map(\.createStatement) + joinTables.map(\.createStatement)
    }

    /// Secondary and unique indexes, created after the data is loaded (much faster than keeping them up to date).
    package var indexStatements: [String] {
        if let coreData { return coreData.indexStatements(model: wholeModel) }
        return tables.flatMap(\.indexStatements) + joinTables.flatMap(\.indexStatements)
    }

    /// Orders tables so that each comes after the tables its to-one columns reference.
    private static func loadOrder(_ tables: [String: EntityTable], model: Model) throws(ModelError) -> [EntityTable] {
        var ordered: [EntityTable] = []
        var placed = Set<String>()
        var remaining = tables.keys.sorted()
        while !remaining.isEmpty {
            let ready = remaining.filter { name in
                tables[name]!.foreignKeys.allSatisfy { $0.destination == name || placed.contains($0.destination) }
            }
            guard !ready.isEmpty else {
                // A cycle: break it at the first table; its references are filled by name lookup after its
                // destinations are loaded, so only the order matters, not feasibility.
                let name = remaining[0]
                ordered.append(tables[name]!)
                placed.insert(name)
                remaining.removeFirst()
                continue
            }
            for name in ready {
                ordered.append(tables[name]!)
                placed.insert(name)
            }
            remaining.removeAll { placed.contains($0) }
        }
        return ordered
    }
}

/// An SQL string literal for a name from the model (never for user values, which are bound).
func sqlLiteral(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}
