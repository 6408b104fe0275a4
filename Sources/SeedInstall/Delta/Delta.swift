import Foundation

/// The row changes that turn one release of a channel into another, keyed by primary key.
///
/// Read one with ``DeltaReader``, write one with `DeltaWriter`, chain two with
/// `Delta.compose(_:_:)`, and turn one into SQL with ``DeltaPlan``. The format is in
/// `docs/publishing.md`, "Deltas: the format".
package struct Delta: Sendable, Hashable {
    /// The releases it goes from and to, and the store's tables.
    package var header: DeltaHeader
    /// In apply order: tables in header order; within a table, clear, deletes, inserts, updates.
    package var operations: [DeltaOperation]

    /// A delta of these operations, unchecked (``DeltaPlan`` checks them against a store).
    package init(header: DeltaHeader, operations: [DeltaOperation]) {
        self.header = header
        self.operations = operations
    }
}

/// What a delta applies to and what it gives, checked before anything is written.
package struct DeltaHeader: Sendable, Hashable {
    /// The release the delta applies to.
    package var from: DeltaRelease
    /// The release the delta gives.
    package var to: DeltaRelease
    /// Every table of the store, in name order.
    package var tables: [DeltaTable]

    /// A header from `from` to `to` over `tables` (every table of the store, in name order).
    package init(from: DeltaRelease, to: DeltaRelease, tables: [DeltaTable]) {
        self.from = from
        self.to = to
        self.tables = tables
    }
}

/// A release as a delta names it: its data version and content digest (`StoreMetadata`'s).
package struct DeltaRelease: Sendable, Hashable {
    /// The release's data version.
    package var dataVersion: Int64
    /// The release's content digest, as its store's metadata records it.
    package var contentDigest: String

    /// The release of this data version and content digest.
    package init(dataVersion: Int64, contentDigest: String) {
        self.dataVersion = dataVersion
        self.contentDigest = contentDigest
    }
}

/// A table of the store: its columns in table order, and which of them make its primary key.
package struct DeltaTable: Sendable, Hashable {
    /// The table's name in the store.
    package var name: String
    /// Its columns, in table order.
    package var columns: [String]
    /// Indexes into ``columns``, in key order; empty for a table without a primary key, which a
    /// delta replaces whole.
    package var keyColumns: [Int]

    /// A table of `columns`, keyed by the columns at `keyColumns`.
    package init(name: String, columns: [String], keyColumns: [Int]) {
        self.name = name
        self.columns = columns
        self.keyColumns = keyColumns
    }

    /// Whether the table has a primary key (a table without one is replaced whole).
    package var isKeyed: Bool { !keyColumns.isEmpty }

    /// The key of a full row.
    package func key(of row: [DeltaValue]) -> [DeltaValue] {
        keyColumns.map { row[$0] }
    }
}

/// One row change; `table` indexes the header's tables.
package enum DeltaOperation: Sendable, Hashable {
    /// Removes every row of a table without a primary key (inserts of all its rows follow).
    case clear(table: Int)
    /// Removes the row with this key.
    case delete(table: Int, key: [DeltaValue])
    /// A full row, every column in table order.
    case insert(table: Int, row: [DeltaValue])
    /// The changed columns of the row with this key; never a key column.
    case update(table: Int, key: [DeltaValue], changes: [DeltaChange])

    /// The index, in the header's tables, of the table the operation changes.
    package var table: Int {
        switch self {
        case .clear(let table), .delete(let table, _), .insert(let table, _), .update(let table, _, _): table
        }
    }

    /// The place of the operation's kind within a table's apply order; the encoding's operation byte
    /// is this plus one (1 clear, 2 delete, 3 insert, 4 update).
    package var rank: Int {
        switch self {
        case .clear: 0
        case .delete: 1
        case .insert: 2
        case .update: 3
        }
    }
}

/// A column's new value in an update.
package struct DeltaChange: Sendable, Hashable {
    /// The index of the changed column in its table's ``DeltaTable/columns``.
    package var column: Int
    /// The column's new value.
    package var value: DeltaValue

    /// A change of `column` to `value`.
    package init(column: Int, value: DeltaValue) {
        self.column = column
        self.value = value
    }
}
