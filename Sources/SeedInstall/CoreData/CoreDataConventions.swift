import Foundation

/// What a store in Core Data's layout fixed beyond its model: the rows of its `Z_PRIMARYKEY`, the
/// framework version whose names its tables follow, the names of its self-referential
/// many-to-many join tables, and the entities of its persistent history.
///
/// Core Data named an Xcode compound index `<TABLE>_<COLUMNS>` (framework 641, 2015) and later
/// `Z_<Entity>_<properties>` (865, 2018), as the Wire stores show. Which of its two relationships
/// names a self-referential many-to-many's join table follows no rule found so far
/// (`docs/store-format.md`, "Self-referential join tables"): a store's own names are read from
/// it. A store the runtime creates follows the current framework; a store converted from Core
/// Data's layout keeps the conventions of the store it came from (the plain layout remembers them
/// in `coreDataLayout`), so it comes back as Core Data left it.
package struct CoreDataConventions: Sendable, Hashable {
    /// `Z_PRIMARYKEY`'s `Z_NAME` → `Z_ENT`, as the store has them: an entity renamed by a migration
    /// keeps its old name there (CoreDataPlus's V2 store).
    package var entityNumbers: [String: Int]
    /// `NSPersistenceFrameworkVersion` of the framework whose layout the store follows.
    package var frameworkVersion: Int
    /// The store's join tables and views named `Z_<n><REL>`, each a table or a view: a
    /// self-referential many-to-many keeps the name its store gives it (``CoreDataSchema/JoinTable``).
    /// Read from a store, every such name; in a laid-out schema's conventions, those of its
    /// self-referential pairs only.
    package var joinTableNames: [String: JoinTableObject]

    /// Index name → `CREATE INDEX` of the store's indexes on its join tables: a join table Core Data
    /// renamed in place keeps the index it had under its other name, and a conversion makes it again.
    /// In a laid-out schema's conventions, those on its self-referential join tables that its own
    /// index does not repeat.
    package var joinTableIndexes: [String: String] = [:]

    /// The `Z_PRIMARYKEY` rows of Core Data's persistent history (numbered from 16001), in number
    /// order: a store that tracked history has them, and its tables (`A` and the entity's name),
    /// which a conversion copies as they are. Not in ``entityNumbers``, which numbers the model's
    /// entities only.
    package var historyEntities: [HistoryEntity] = []

    /// What a join table's name is in the store.
    package enum JoinTableObject: String, Sendable, Hashable {
        /// The table holding the rows.
        case table
        /// A view reading the table under the pair's other name (a seed whose name is uncertain).
        case view
    }

    package init(
        entityNumbers: [String: Int] = [:], frameworkVersion: Int = CoreDataMetadata.frameworkVersion,
        joinTableNames: [String: JoinTableObject] = [:]
    ) {
        self.entityNumbers = entityNumbers
        self.frameworkVersion = frameworkVersion
        self.joinTableNames = joinTableNames
    }

    /// A new store's: numbered from the model, named as the current framework names things.
    package static let current = CoreDataConventions()

    /// The first framework version seen with the current compound index names. Stores of 641 have the
    /// old ones and stores of 865 the new; the oracles' notes put the change at 752, which no store
    /// here confirms.
    static let currentNamesSince = 752

    /// Whether the store names compound indexes as framework 641 did.
    package var hasLegacyNames: Bool { frameworkVersion < Self.currentNamesSince }
}
