import Foundation

/// A string folded one character at a time, with where each character's fold starts, so that
/// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `LIKE` under `[c]` and `[d]` match only whole
/// characters, as Foundation's `range(of:options:)` does: under `[c]` "Ångström" does not begin
/// with "a" (its Å folds to a + ring), under `[cd]` it does, and "ß" matches "ss" but not "s".
///
/// A character is a `Character` (an extended grapheme cluster), except that CR LF is two, as
/// NSString's composed character sequences count it and Foundation's searches find a lone CR.
///
/// Each character folds as ``PredicateFunctions/fold(_:options:)`` folds a whole string (with
/// Foundation's `folding(options:locale:)`), so these operators agree with `==[cd]` and
/// `canonical:()`. Without options a character is only decomposed: `LIKE` then compares
/// canonically equivalent characters as equal, as `Character` does.
struct FoldedText {
    /// The folded characters' scalar values, one after another.
    private(set) var scalars: [UInt32] = []
    /// Where each character's fold starts in `scalars`, then `scalars.count`.
    private(set) var starts: [Int] = [0]

    init(_ text: String, options: Int) {
        scalars.reserveCapacity(text.utf8.count)
        starts.reserveCapacity(text.utf8.count + 1)
        for character in text {
            if character.isASCII {
                // ASCII folds to itself, but for [c] lowering A–Z; Foundation is not asked.
                for byte in character.utf8 {
                    scalars.append(UInt32(Self.fold(byte, options: options)))
                    starts.append(scalars.count)
                }
            } else {
                scalars.append(contentsOf: Self.fold(character, options: options))
                starts.append(scalars.count)
            }
        }
    }

    /// The number of characters.
    var count: Int { starts.count - 1 }

    /// Whether `needle`'s folded scalars lie at `offset`, starting and ending where characters do.
    func matches(_ needle: [UInt32], at offset: Int) -> Bool {
        let end = offset + needle.count
        guard offset >= 0, end <= scalars.count, scalars[offset..<end].elementsEqual(needle) else { return false }
        return isStart(offset) && isStart(end)
    }

    /// Whether a character's fold starts at `offset` (or the text ends there).
    func isStart(_ offset: Int) -> Bool {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low < starts.count && starts[low] == offset
    }

    /// The folds of the characters seen, by options: Foundation takes microseconds to fold one,
    /// and a column's text repeats few characters beyond ASCII.
    private static let folds = BoundedCache<FoldKey, [UInt32]>(limit: 4096)

    private struct FoldKey: Hashable {
        var character: Character
        var options: Int
    }

    /// A character's folded scalar values.
    static func fold(_ character: Character, options: Int) -> [UInt32] {
        let key = FoldKey(character: character, options: options)
        if let folded = folds.value(for: key) { return folded }
        let string = String(character)
        let folded = (options == 0 ? string.decomposedStringWithCanonicalMapping : PredicateFunctions.fold(string, options: options))
            .unicodeScalars.map(\.value)
        folds.keep(folded, for: key)
        return folded
    }

    /// A byte of ASCII as `[c]` (1) folds it; `[d]` (2) leaves ASCII as it is.
    static func fold(_ byte: UInt8, options: Int) -> UInt8 {
        options & 1 != 0 && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

extension FoldedText {
    /// Where `BEGINSWITH`, `ENDSWITH` and `CONTAINS` look for the needle.
    enum Anchor {
        case start, end, anywhere
    }

    /// Whether `text` holds `needle` at `anchor` under the options, in whole characters.
    /// An empty needle is found nowhere, as `NSString`'s `hasPrefix`, `hasSuffix` and `range(of:)` answer.
    static func find(_ needle: String, in text: String, at anchor: Anchor, options: Int) -> Bool {
        guard !needle.isEmpty else { return false }
        if let found = findASCII(needle, in: text, at: anchor, options: options) { return found }
        let folded = FoldedText(text, options: options)
        let key = FoldedText(needle, options: options).scalars
        switch anchor {
        case .start: return folded.matches(key, at: 0)
        case .end: return folded.matches(key, at: folded.scalars.count - key.count)
        case .anywhere: return folded.starts.dropLast().contains { folded.matches(key, at: $0) }
        }
    }

    /// `find` for two ASCII strings, on their bytes without allocating; nil when either is not
    /// ASCII. Every ASCII byte is a character of its own.
    private static func findASCII(_ needle: String, in text: String, at anchor: Anchor, options: Int) -> Bool? {
        var text = text, needle = needle
        return text.withUTF8 { text in
            needle.withUTF8 { needle -> Bool? in
                guard text.allSatisfy({ $0 < 0x80 }), needle.allSatisfy({ $0 < 0x80 }) else { return nil }
                guard needle.count <= text.count else { return false }
                func matches(at offset: Int) -> Bool {
                    for index in needle.indices where fold(text[offset + index], options: options) != fold(needle[index], options: options)
                    {
                        return false
                    }
                    return true
                }
                switch anchor {
                case .start: return matches(at: 0)
                case .end: return matches(at: text.count - needle.count)
                case .anywhere: return (0...(text.count - needle.count)).contains(where: matches)
                }
            }
        }
    }
}
