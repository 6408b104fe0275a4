/// "Did you mean …?": the known names nearest to one that matched nothing.
public enum NameSuggestions {
    /// Up to `limit` names closest to `name`: those it begins (or that begin it), then those within an
    /// edit distance of a third of the longer length (at least 2), nearest first.
    /// - Parameter normalize: how names are compared (e.g. lowercased, separators removed).
    public static func nearest(
        to name: String, among names: [String], limit: Int = 3, normalize: (String) -> String = { $0.lowercased() }
    ) -> [String] {
        let target = Array(normalize(name))
        let scored = names.compactMap { candidate -> (Int, String)? in
            let other = Array(normalize(candidate))
            guard !target.isEmpty, !other.isEmpty else { return nil }
            if other.starts(with: target) || target.starts(with: other) { return (0, candidate) }
            let distance = editDistance(target, other)
            return distance <= max(2, max(target.count, other.count) / 3) ? (distance, candidate) : nil
        }
        return scored.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.prefix(limit).map(\.1)
    }

    /// Levenshtein distance.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
