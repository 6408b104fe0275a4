import Foundation
package import GRDB

/// The SQL functions compiled predicates call, registered on every connection the runtime opens.
enum PredicateFunctions {
    /// `seed_fold(text, options)`: ``TextFolding/function``, which derived attributes use too.
    static let fold = TextFolding.function

    /// `seed_like(text, pattern, options)`: NSPredicate's `LIKE`, where `*` matches any run of
    /// characters and `?` one character, over the whole string.
    static let like = DatabaseFunction("seed_like", argumentCount: 3, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return false }
        let options = Int.fromDatabaseValue(values[2]) ?? 0
        return matches(Array(fold(text, options: options)), pattern: Array(fold(pattern, options: options)))
    }

    static func register(in db: Database) {
        db.add(function: fold)
        db.add(function: like)
        db.add(function: matchesFunction)
        CoreDataValues.registerFunctions(in: db)
    }

    /// Folds case and/or diacritics: ``TextFolding/fold(_:options:)``.
    static func fold(_ text: String, options: Int) -> String { TextFolding.fold(text, options: options) }

    /// One element of a `LIKE` pattern.
    enum PatternElement: Equatable {
        case anyRun
        case anyCharacter
        case literal(Character)
    }

    /// Reads a `LIKE` pattern: `*` and `?` are wildcards, and a backslash makes the character after
    /// it literal (`a\*b` matches only `a*b`), as NSPredicate reads it; a trailing backslash is itself.
    static func elements(of pattern: [Character]) -> [PatternElement] {
        var result: [PatternElement] = []
        var index = 0
        while index < pattern.count {
            let character = pattern[index]
            index += 1
            switch character {
            case "*": result.append(.anyRun)
            case "?": result.append(.anyCharacter)
            case "\\" where index < pattern.count:
                result.append(.literal(pattern[index]))
                index += 1
            default: result.append(.literal(character))
            }
        }
        return result
    }

    /// Wildcard matching with backtracking over the last `*`, linear in practice.
    static func matches(_ text: [Character], pattern: [Character]) -> Bool {
        let pattern = elements(of: pattern)
        var t = 0, p = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == .anyCharacter || pattern[p] == .literal(text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == .anyRun {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == .anyRun { p += 1 }
        return p == pattern.count
    }
}
