import Foundation
internal import GRDB

extension PredicateFunctions {
    /// `seed_matches(text, pattern, options)`: NSPredicate's `MATCHES`, an ICU regular expression
    /// (Foundation's `NSRegularExpression`) that must match the whole string; `[c]` (1) ignores
    /// case and `[d]` (2) folds diacritics of both. A pattern that is not a regular expression is
    /// an error naming it. See [MATCHES](https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html).
    static let matchesFunction = DatabaseFunction("seed_matches", argumentCount: 3, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return false }
        let options = Int.fromDatabaseValue(values[2]) ?? 0
        return try matches(text, pattern: pattern, options: options)
    }

    /// Whether `pattern` matches the whole of `text`.
    static func matches(_ text: String, pattern: String, options: Int) throws -> Bool {
        let expression = try regularExpression(fold(pattern, options: options & 2), caseInsensitive: options & 1 != 0)
        let subject = fold(text, options: options & 2)
        let range = NSRange(subject.startIndex..., in: subject)
        return expression.firstMatch(in: subject, options: [.anchored], range: range).map { $0.range == range } ?? false
    }

    /// Compiled expressions by pattern and case option: a fetch calls the function once per row.
    private static let cache = BoundedCache<String, NSRegularExpression>(limit: 256)

    private static func regularExpression(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        if let cached = cache.value(for: key) { return cached }
        // Anchored at both ends inside a group, so alternatives and backtracking are tried for a
        // match of the whole string, as ICU's uregex_matches does.
        guard (try? NSRegularExpression(pattern: pattern)) != nil,
            let expression = try? NSRegularExpression(pattern: "(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        else {
            throw DatabaseError(
                message: "MATCHES: \"\(pattern)\" is not a valid ICU regular expression; check its brackets, escapes and quantifiers")
        }
        cache.keep(expression, for: key)
        return expression
    }
}
