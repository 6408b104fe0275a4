import Foundation

/// The row changes that turn one release of a channel into another, keyed by primary key.
///
/// Read one with ``DeltaReader``, write one with ``DeltaWriter``, chain two with
/// ``compose(_:_:)``, and turn one into SQL with ``DeltaPlan``. The format is in
/// `docs/publishing.md`, "Deltas: the format".
package struct Delta: Sendable, Hashable {
    package var header: DeltaHeader
    /// In apply order: tables in header order; within a table, clear, deletes, inserts, updates.
    package var operations: [DeltaOperation]

    package init(header: DeltaHeader, operations: [DeltaOperation]) {
        self.header = header
        self.operations = operations
    }
}

/// What a delta applies to and what it gives, checked before anything is written.
package struct DeltaHeader: Sendable, Hashable {
    package var from: DeltaRelease
    package var to: DeltaRelease
    /// Every table of the store, in name order.
    package var tables: [DeltaTable]

    package init(from: DeltaRelease, to: DeltaRelease, tables: [DeltaTable]) {
        self.from = from
        self.to = to
        self.tables = tables
    }
}

/// A release as a delta names it: its data version and content digest (`StoreMetadata`'s).
package struct DeltaRelease: Sendable, Hashable {
    package var dataVersion: Int64
    package var contentDigest: String

    package init(dataVersion: Int64, contentDigest: String) {
        self.dataVersion = dataVersion
        self.contentDigest = contentDigest
    }
}

/// A table of the store: its columns in table order, and which of them make its primary key.
package struct DeltaTable: Sendable, Hashable {
    package var name: String
    package var columns: [String]
    /// Indexes into ``columns``, in key order; empty for a table without a primary key, which a
    /// delta replaces whole.
    package var keyColumns: [Int]

    package init(name: String, columns: [String], keyColumns: [Int]) {
        self.name = name
        self.columns = columns
        self.keyColumns = keyColumns
    }

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
    case delete(table: Int, key: [DeltaValue])
    /// A full row, every column in table order.
    case insert(table: Int, row: [DeltaValue])
    /// The changed columns of the row with this key; never a key column.
    case update(table: Int, key: [DeltaValue], changes: [DeltaChange])

    package var table: Int {
        switch self {
        case .clear(let table), .delete(let table, _), .insert(let table, _), .update(let table, _, _): table
        }
    }

    /// The place of the operation's kind within a table's apply order.
    var rank: Int {
        switch self {
        case .clear: 0
        case .delete: 1
        case .insert: 2
        case .update: 3
        }
    }

    /// The encoding's operation byte.
    package var code: UInt8 { UInt8(rank + 1) }
}

/// A column's new value in an update.
package struct DeltaChange: Sendable, Hashable {
    package var column: Int
    package var value: DeltaValue

    package init(column: Int, value: DeltaValue) {
        self.column = column
        self.value = value
    }
}
