import Foundation
internal import GRDB

/// The SQL functions compiled predicates call, registered on every connection the runtime opens.
enum PredicateFunctions {
    /// `seed_fold(text, options)`: ``TextFolding/function``, which derived attributes use too.
    static let fold = TextFolding.function

    /// `seed_begins_with`, `seed_ends_with` and `seed_contains(text, needle, options)`: `BEGINSWITH`,
    /// `ENDSWITH` and `CONTAINS` under `[c]` and `[d]`, in whole characters (see ``FoldedText``).
    static let searches = [("seed_begins_with", FoldedText.Anchor.start), ("seed_ends_with", .end), ("seed_contains", .anywhere)].map {
        name, anchor in
        DatabaseFunction(name, argumentCount: 3, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let needle = String.fromDatabaseValue(values[1]) else { return false }
            return FoldedText.find(needle, in: text, at: anchor, options: Int.fromDatabaseValue(values[2]) ?? 0)
        }
    }

    static func register(in db: Database) {
        db.add(function: fold)
        db.add(function: like)
        for search in searches { db.add(function: search) }
        db.add(function: matchesFunction)
        CoreDataValues.registerFunctions(in: db)
    }

    /// Folds case and/or diacritics: ``TextFolding/fold(_:options:)``.
    static func fold(_ text: String, options: Int) -> String { TextFolding.fold(text, options: options) }
}
