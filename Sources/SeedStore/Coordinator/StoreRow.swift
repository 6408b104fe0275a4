/// One stored object's values.
///
/// The values are kept in the order of a ``RowLayout`` that every row of a fetch shares; read them
/// by name with the subscript (`row["latitude"]`), or all at once with ``values``.
public struct StoreRow: Sendable, Hashable {
    /// The entity of the row's object.
    public var entity: String
    /// The row's primary key in its store.
    public var key: StoreValue
    /// The optimistic-locking counter (Core Data's `Z_OPT`): 1 when inserted, +1 on each saved update.
    public var version: Int64
    /// The values in the layout's order, then the sort values: one array a row.
    var storage: RowValues

    /// A row whose values follow a layout shared with other rows: what a store's fetch makes.
    /// - Parameters:
    ///   - entity: The entity the row belongs to.
    ///   - key: The row's primary key.
    ///   - layout: The names of the values, shared with the other rows of the fetch.
    ///   - columns: One value for each of the layout's ``RowLayout/names``, in order.
    ///   - version: The row's optimistic-locking counter.
    ///   - sortValues: The values of the request's sort keys, so results from several stores can be merged.
    public init(entity: String, key: StoreValue, layout: RowLayout, columns: [StoreValue], version: Int64, sortValues: [StoreValue] = []) {
        precondition(columns.count == layout.names.count, "a row needs one value for each name of its layout")
        self.init(
            entity: entity, key: key, storage: RowValues(layout: layout, columns: sortValues.isEmpty ? columns : columns + sortValues),
            version: version)
    }

    /// A row from values by name (its layout is made for it alone).
    public init(entity: String, key: StoreValue, values: [String: StoreValue], version: Int64, sortValues: [StoreValue] = []) {
        var storage = RowValues(values)
        storage.sortValues = sortValues
        self.init(entity: entity, key: key, storage: storage, version: version)
    }

    /// A row whose storage holds the layout's values followed by the sort values.
    init(entity: String, key: StoreValue, storage: RowValues, version: Int64) {
        self.entity = entity
        self.key = key
        self.version = version
        self.storage = storage
    }

    /// The names of ``columns``, shared by the rows of one fetch.
    public var layout: RowLayout { storage.layout }

    /// The values in the order of ``layout``.
    public var columns: [StoreValue] { Array(storage.columns.prefix(storage.layout.names.count)) }

    /// The values of the request's sort keys, so results from several stores can be merged.
    public var sortValues: [StoreValue] {
        get { storage.sortValues }
        set { storage.sortValues = newValue }
    }

    /// The value of the request's sort key at `index`, nil past the last (without making ``sortValues``).
    func sortValue(at index: Int) -> StoreValue? {
        index < storage.sortValueCount ? storage.value(at: storage.layout.names.count + index) : nil
    }

    /// Persistent attributes, and to-one relationships stored on this side (the destination's key),
    /// by name: nil for a name the row has no value for.
    public subscript(name: String) -> StoreValue? {
        get { storage[name] }
        set { storage[name] = newValue }
    }

    /// Persistent attributes, and to-one relationships stored on this side (the destination's key), by name.
    ///
    /// Made on each use: read single values through the subscript.
    public var values: [String: StoreValue] {
        get { storage.dictionary }
        set { storage.setValues(newValue) }
    }

    // By name, as the values read: two rows laid out differently can be equal.
    public static func == (lhs: StoreRow, rhs: StoreRow) -> Bool {
        lhs.entity == rhs.entity && lhs.key == rhs.key && lhs.version == rhs.version && lhs.sortValues == rhs.sortValues
            && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entity)
        hasher.combine(key)
        hasher.combine(version)
        hasher.combine(sortValues)
        hasher.combine(values)
    }
}

/// Values by name, kept in the order of a shared ``RowLayout``: a stored row's, or a managed
/// object's as last read or saved. A fetched row's sort values follow the layout's values.
///
/// The values are a slice: the rows of one fetch share one array (one allocation a fetch, not a
/// row); changing a row's value copies its own values only.
struct RowValues: Sendable {
    let layout: RowLayout
    private(set) var columns: ArraySlice<StoreValue>

    static let empty = RowValues(layout: RowLayout(names: []), columns: [])

    init(layout: RowLayout, columns: ArraySlice<StoreValue>) {
        self.layout = layout
        self.columns = columns
    }

    init(layout: RowLayout, columns: [StoreValue]) {
        self.init(layout: layout, columns: columns[...])
    }

    init(_ values: [String: StoreValue]) {
        // Sorted, so two rows made from equal dictionaries have equal layouts.
        let names = values.keys.sorted()
        layout = RowLayout(names: names)
        columns = ArraySlice(names.map { values[$0]! })
    }

    /// The value at a position of the layout (then of the sort values).
    func value(at position: Int) -> StoreValue {
        columns[columns.startIndex + position]
    }

    /// How many values follow the layout's (a fetched row's sort values).
    var sortValueCount: Int { columns.count - layout.names.count }

    var sortValues: [StoreValue] {
        get { Array(columns.suffix(sortValueCount)) }
        set {
            columns.removeLast(sortValueCount)
            columns += newValue
        }
    }

    /// Replaces the values by name, keeping the sort values that follow them.
    mutating func setValues(_ values: [String: StoreValue]) {
        let sortValues = self.sortValues
        self = RowValues(values)
        self.sortValues = sortValues
    }

    subscript(name: String) -> StoreValue? {
        get {
            guard let index = layout.index(of: name) else { return nil }
            return columns[columns.startIndex + index]
        }
        set {
            if let newValue, let index = layout.index(of: name) {
                columns[columns.startIndex + index] = newValue
            } else {
                var values = dictionary
                values[name] = newValue
                setValues(values)
            }
        }
    }

    var dictionary: [String: StoreValue] { layout.positions.mapValues(value(at:)) }
}
