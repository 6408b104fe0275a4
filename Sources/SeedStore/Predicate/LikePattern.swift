/// A `LIKE` pattern read and folded once per fetch rather than once per row: `*` and `?` are
/// wildcards, and a backslash makes the character after it literal (`a\*b` matches only `a*b`),
/// as NSPredicate reads it; a trailing backslash is itself.
struct LikePattern: Sendable {
    enum Element: Sendable {
        case anyRun
        case anyCharacter
        /// The folded scalar values of a run of literal characters.
        case literal([UInt32])
    }

    /// One element of the pattern over ASCII text, where every byte is a character.
    enum Byte: Equatable, Sendable {
        case anyRun
        case anyCharacter
        case byte(UInt8)
    }

    private(set) var elements: [Element] = []
    /// The pattern byte by byte, when every literal in it folds to ASCII; else nil.
    private(set) var bytes: [Byte]?

    init(_ pattern: String, options: Int) {
        var run = ""
        func endRun() {
            guard !run.isEmpty else { return }
            elements.append(.literal(FoldedText(run, options: options).scalars))
            run = ""
        }
        var index = pattern.startIndex
        while index < pattern.endIndex {
            let character = pattern[index]
            index = pattern.index(after: index)
            switch character {
            case "*":
                endRun()
                elements.append(.anyRun)
            case "?":
                endRun()
                elements.append(.anyCharacter)
            case "\\" where index < pattern.endIndex:
                run.append(pattern[index])
                index = pattern.index(after: index)
            default:
                run.append(character)
            }
        }
        endRun()
        bytes = elements.reduce(into: [Byte]?.some([])) { bytes, element in
            switch element {
            case .anyRun: bytes?.append(.anyRun)
            case .anyCharacter: bytes?.append(.anyCharacter)
            case .literal(let scalars):
                if scalars.allSatisfy({ $0 < 0x80 }) { bytes?.append(contentsOf: scalars.map { .byte(UInt8($0)) }) } else { bytes = nil }
            }
        }
    }

    private struct Key: Hashable {
        var pattern: String
        var options: Int
    }

    private static let cache = BoundedCache<Key, LikePattern>(limit: 256)

    /// The pattern read with the options, from the cache when a row before asked for it.
    static func compiled(_ pattern: String, options: Int) -> LikePattern {
        let key = Key(pattern: pattern, options: options)
        if let compiled = cache.value(for: key) { return compiled }
        let compiled = LikePattern(pattern, options: options)
        cache.keep(compiled, for: key)
        return compiled
    }
}
