/// The names of a row's values and where the row keeps each: made once per fetch (once per entity
/// of an inheritance tree) and shared by all its rows, so that a row holds its values as an array
/// rather than as a dictionary that hashes every name again for every row.
///
/// ```swift
/// let layout = RowLayout(names: ["postcode", "latitude"])
/// let row = StoreRow(entity: "Postcode", key: 1, layout: layout, columns: ["CT1 1AA", 51.28], version: 1)
/// row["latitude"]   // .real(51.28)
/// ```
public final class RowLayout: Sendable, Hashable, CustomStringConvertible {
    /// The name of each position; in a tree (Core Data's layout) two positions may have one name,
    /// of which ``index(of:)`` gives the one the row's entity uses.
    public let names: [String]
    private let indexes: [String: Int]

    /// A layout whose first position of each name is the one read.
    public init(names: [String]) {
        self.names = names
        indexes = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A layout reading each name at a chosen position (`indexes` maps names to positions in `names`).
    init(names: [String], indexes: [String: Int]) {
        self.names = names
        self.indexes = indexes
    }

    /// The position of a name's value, or nil when the row has none.
    public func index(of name: String) -> Int? { indexes[name] }

    /// Each name with the position read for it.
    var positions: [String: Int] { indexes }

    public static func == (lhs: RowLayout, rhs: RowLayout) -> Bool {
        lhs === rhs || (lhs.names == rhs.names && lhs.indexes == rhs.indexes)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(names) }

    public var description: String { names.joined(separator: ", ") }
}
