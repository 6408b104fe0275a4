import Foundation
internal import GRDB

/// Case and diacritic folding as Foundation compares strings, in Swift and as an SQL function, for
/// what compares or derives text: predicates' `[c]` and `[d]`, and derived attributes.
enum TextFolding {
    /// `seed_fold(text, options)`: folds case (`[c]`, 1) and/or diacritics (`[d]`, 2), as the modifiers ask.
    static let function = DatabaseFunction("seed_fold", argumentCount: 2, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return values[0].isNull ? nil : values[0] }
        let options = Int.fromDatabaseValue(values[1]) ?? 0
        return fold(text, options: options)
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
