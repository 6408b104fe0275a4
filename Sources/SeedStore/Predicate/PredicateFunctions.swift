import Foundation
package import GRDB

/// The SQL functions compiled predicates call, registered on every connection the runtime opens.
enum PredicateFunctions {
    /// `seed_fold(text, options)`: folds case (`[c]`, 1) and/or diacritics (`[d]`, 2), as the modifiers ask.
    static let fold = DatabaseFunction("seed_fold", argumentCount: 2, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return values[0].isNull ? nil : values[0] }
        let options = Int.fromDatabaseValue(values[1]) ?? 0
        return fold(text, options: options)
    }

    /// `seed_begins_with`, `seed_ends_with` and `seed_contains(text, needle, options)`: `BEGINSWITH`,
    /// `ENDSWITH` and `CONTAINS` under `[c]` and `[d]`, in whole characters (see ``FoldedText``).
    static let searches = [("seed_begins_with", FoldedText.Anchor.start), ("seed_ends_with", .end), ("seed_contains", .anywhere)].map { name, anchor in
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

    /// Folds as Foundation's `compare(_:options:)` does with `.caseInsensitive` and/or
    /// `.diacriticInsensitive`: full case folding (`ß` and `SS`, `ﬁ` and `FI` are equal), then
    /// canonical decomposition, so composed and decomposed accents fold to the same bytes.
    static func fold(_ text: String, options: Int) -> String {
        var compare: String.CompareOptions = []
        if options & 1 != 0 { compare.insert(.caseInsensitive) }
        if options & 2 != 0 { compare.insert(.diacriticInsensitive) }
        guard !compare.isEmpty else { return text }
        return text.folding(options: compare, locale: nil).decomposedStringWithCanonicalMapping
    }
}
