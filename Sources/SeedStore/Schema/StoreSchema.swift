import SeedModel

/// How one model configuration is laid out in SQLite: tables, columns, keys, join tables, indexes.
///
/// One table per entity, named as the entity; one column per persistent attribute, named as the
/// attribute; an `INTEGER PRIMARY KEY` named ``Model/primaryKeyColumn``; each stored to-one
/// relationship as an integer column named as the relationship, referencing the destination's
/// primary key and indexed. An entity whose objects are identified by a single-attribute
/// uniqueness constraint and that nothing references is stored `WITHOUT ROWID`, keyed by that
/// attribute, so the key is not stored twice (see `docs/store-format.md`).
public struct StoreSchema: Sendable {
    /// The model restricted to the configuration: what the store holds and embeds.
    public let model: Model
    /// The model the schema was laid out from: the coordinator's, whose every entity hash the
    /// store is stamped with (Core Data's rule; see ``SeedModel/Model/fits(storedHashes:)``).
    public let wholeModel: Model
    public let configuration: String
    /// Entity tables in load order: every table a to-one column references comes before it.
    public let tables: [EntityTable]
    public let joinTables: [JoinTable]
    /// Where each relationship is stored.
    let storage: RelationshipStorage

    /// Lays out the entities of one configuration.
    /// - Throws: ``ModelError`` when the configuration does not exist or its relationships form a cycle
    ///   of required to-one references that no load order can satisfy.
    public init(model: Model, configuration: String) throws(ModelError) {
        let restricted = try model.restricted(to: configuration)
        try Self.checkStorable(restricted)
        self.model = restricted
        self.wholeModel = model
        self.configuration = configuration
        // A relationship to an entity outside the configuration has no place in this store's layout;
        // model validation refuses one, and the coordinator refuses to save a link across stores.
        var layout = restricted
        let members = Set(restricted.entities.map(\.name))
        layout.entities = restricted.entities.map { entity in
            var entity = entity
            entity.relationships.removeAll { !members.contains($0.destination) }
            return entity
        }
        let storage = RelationshipStorage(model: layout)
        self.storage = storage
        let referenced = storage.referencedEntities
        var tables: [String: EntityTable] = [:]
        for entity in layout.entities {
            tables[entity.name] = EntityTable(entity: entity, storage: storage, referenced: referenced.contains(entity.name))
        }
        self.tables = try Self.loadOrder(tables, model: restricted)
        self.joinTables = storage.joinTables
    }

    /// Refuses what this layout cannot store yet, naming the entity and property.
    private static func checkStorable(_ model: Model) throws(ModelError) {
        var diagnostics: [ModelDiagnostic] = []
        for entity in model.entities {
            if let parent = entity.parentEntity {
                diagnostics.append(ModelDiagnostic(
                    .error, "entity inheritance (parent \(parent)) cannot be stored in a seed store yet; "
                        + "the model loads and hashes, but build with a model whose entities have no parent",
                    source: entity.origin ?? model.source, entity: entity.name))
            }
            for attribute in entity.attributes where attribute.type == .composite && !attribute.isTransient {
                diagnostics.append(ModelDiagnostic(
                    .error, "a composite attribute cannot be stored until Core Data's layout for it is known; "
                        + "split it into attributes or mark it transient",
                    source: entity.origin ?? model.source, entity: entity.name, property: attribute.name))
            }
        }
        if !diagnostics.isEmpty { throw .invalid(diagnostics) }
    }

    public func table(for entity: String) -> EntityTable? {
        tables.first { $0.entity.name == entity }
    }

    /// `CREATE TABLE` statements for every entity and join table, without secondary indexes.
    public var createTableStatements: [String] {
        tables.map(\.createStatement) + joinTables.map(\.createStatement)
    }

    /// Secondary and unique indexes, created after the data is loaded (much faster than keeping them up to date).
    public var indexStatements: [String] {
        tables.flatMap(\.indexStatements) + joinTables.flatMap(\.indexStatements)
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

/// Quotes an SQL identifier: `"name"`, doubling any quote inside.
public func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
