import Foundation
internal import GRDB

extension PredicateFunctions {
    /// `seed_like(text, pattern, options)`: NSPredicate's `LIKE`, where `*` matches any run of
    /// characters and `?` one character, over the whole string.
    static let like = DatabaseFunction("seed_like", argumentCount: 3, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return false }
        return isLike(text, pattern: pattern, options: Int.fromDatabaseValue(values[2]) ?? 0)
    }

    /// Whether `pattern` matches the whole of `text` under the options: `?` takes one character,
    /// `*` any run of them, and a literal run must fold to whole folded characters of the text
    /// (under `[c]`, `stra?e` matches `Straße` but `stras?e` does not; see ``FoldedText``).
    static func isLike(_ text: String, pattern: String, options: Int) -> Bool {
        let pattern = LikePattern.compiled(pattern, options: options)
        if let bytes = pattern.bytes, let found = isLikeASCII(text, tokens: bytes, options: options) { return found }
        let folded = FoldedText(text, options: options)
        // The character positions the pattern so far can reach, so no backtracking is needed.
        var reachable = [Bool](repeating: false, count: folded.count + 1)
        var next = reachable
        reachable[0] = true
        for element in pattern.elements {
            for index in next.indices { next[index] = false }
            switch element {
            case .anyRun:
                guard let first = reachable.firstIndex(of: true) else { return false }
                for index in first..<next.count { next[index] = true }
            case .anyCharacter:
                for index in 0..<folded.count where reachable[index] { next[index + 1] = true }
            case .literal(let key):
                for index in 0..<folded.count where reachable[index] && folded.matches(key, at: folded.starts[index]) {
                    // The position where the run ends; several if a character there folds to nothing.
                    var end = index + 1
                    while end <= folded.count, folded.starts[end] <= folded.starts[index] + key.count {
                        if folded.starts[end] == folded.starts[index] + key.count { next[end] = true }
                        end += 1
                    }
                }
            }
            swap(&reachable, &next)
        }
        return reachable[folded.count]
    }

    /// `isLike` for ASCII text, on its bytes (each a character) without allocating, by the
    /// classic backtracking over the last `*`; nil when the text is not ASCII.
    private static func isLikeASCII(_ text: String, tokens: [LikePattern.Byte], options: Int) -> Bool? {
        var text = text
        return text.withUTF8 { text -> Bool? in
            guard text.allSatisfy({ $0 < 0x80 }) else { return nil }
            var t = 0, p = 0
            var star: Int?
            var resume = 0
            while t < text.count {
                if p < tokens.count, tokens[p] == .anyCharacter || tokens[p] == .byte(FoldedText.fold(text[t], options: options)) {
                    t += 1
                    p += 1
                } else if p < tokens.count, tokens[p] == .anyRun {
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
            while p < tokens.count, tokens[p] == .anyRun { p += 1 }
            return p == tokens.count
        }
    }
}
