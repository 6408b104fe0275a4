/// A sort key for fetches: a key path (through to-one relationships) and a direction.
public struct FetchSortDescriptor: Sendable, Hashable {
    /// The attribute to sort by, through to-one relationships (`county.name`).
    public var keyPath: String
    /// Smallest first when true.
    public var ascending: Bool

    /// A sort by `keyPath`, ascending unless said otherwise.
    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Parses `key` or `key:desc` / `key:asc`, as `seedbuild query --sort` takes it.
    public init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
        guard let key = parts.first, !key.isEmpty else { return nil }
        switch parts.count == 2 ? parts[1].lowercased() : "asc" {
        case "asc", "ascending": self.init(key, ascending: true)
        case "desc", "descending": self.init(key, ascending: false)
        default: return nil
        }
    }
}
