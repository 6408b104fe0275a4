import Foundation

/// What a store in Core Data's layout fixed beyond its model: the rows of its `Z_PRIMARYKEY` and
/// the framework version whose names its tables follow.
///
/// Core Data named two things differently over the years, as the Wire stores show (framework 641,
/// 2015, and 865, 2018): a self-referential many-to-many's join table is named after the
/// relationship whose name sorts first (641) or last (865), and an Xcode compound index is
/// `<TABLE>_<COLUMNS>` (641) or `Z_<Entity>_<properties>` (865). A store the runtime creates
/// follows the current framework; a store converted from Core Data's layout keeps the conventions
/// of the store it came from (the plain layout remembers them in `coreDataLayout`), so it comes back
/// as Core Data left it.
package struct CoreDataConventions: Sendable, Hashable {
    /// `Z_PRIMARYKEY`'s `Z_NAME` → `Z_ENT`, as the store has them: an entity renamed by a migration
    /// keeps its old name there (CoreDataPlus's V2 store).
    package var entityNumbers: [String: Int]
    /// `NSPersistenceFrameworkVersion` of the framework whose layout the store follows.
    package var frameworkVersion: Int

    package init(entityNumbers: [String: Int] = [:], frameworkVersion: Int = CoreDataMetadata.frameworkVersion) {
        self.entityNumbers = entityNumbers
        self.frameworkVersion = frameworkVersion
    }

    /// A new store's: numbered from the model, named as the current framework names things.
    package static let current = CoreDataConventions()

    /// The first framework version seen with the current names. Stores of 641 have the old ones and
    /// stores of 865 the new; the oracles' notes put the change at 752, which no store here confirms.
    static let currentNamesSince = 752

    /// Whether the store names things as framework 641 did.
    package var hasLegacyNames: Bool { frameworkVersion < Self.currentNamesSince }
}

extension CoreDataConventions {
    /// The plain layout's metadata key holding the conventions of a store converted from Core Data's
    /// layout; its presence also says that the store keeps Core Data's stored forms
    /// (`docs/store-format.md`).
    package static let metadataKey = StoreMetadata.Key.coreDataLayout

    /// The conventions as the plain layout's metadata keeps them.
    package var jsonValue: JSONValue {
        .object([
            "frameworkVersion": .integer(Int64(frameworkVersion)),
            "entityNumbers": .object(entityNumbers.mapValues { .integer(Int64($0)) }),
        ])
    }

    /// The conventions a plain store's metadata remembers, or nil when it was not converted from Core Data's layout.
    package init?(_ value: JSONValue?) {
        guard let object = value?.objectValue else { return nil }
        self.init(
            entityNumbers: (object["entityNumbers"]?.objectValue ?? [:]).compactMapValues { $0.integerValue.map(Int.init) },
            frameworkVersion: object["frameworkVersion"]?.integerValue.map(Int.init) ?? CoreDataMetadata.frameworkVersion)
    }
}
