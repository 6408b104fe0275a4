import Foundation

extension SetDigest {
    /// The digest of the store at `path`, read row by row: every row of every table but SQLite's own
    /// (``StoreConnection/tables()``), and every `sqlite_master` row that has SQL (tables, indexes, views, triggers; not
    /// SQLite's own). A release with no base, `verify`, and the device's full check compute it so; a
    /// release that follows a base updates its base's (``Delta/update(_:base:)``). The rows are read
    /// on two threads (a large table in two halves of its rowids), each digest added to the other's.
    package static func compute(of path: String) throws(StoreError) -> SetDigest {
        let store = try StoreConnection(path: path, mode: .immutable)
        var parts: [Part] = []
        for table in try store.tables() {
            // A table without rowids (WITHOUT ROWID) is read whole; others in halves when large.
            let range = try? store.rows("SELECT min(rowid), max(rowid), count(*) FROM \(quoteIdentifier(table.name))").first
            if let range, case .integer(let low)? = range.first, case .integer(let high) = range[1], case .integer(let count) = range[2],
                count >= 20_000
            {
                let middle = low + (high - low) / 2
                parts.append(Part(table: table.name, columns: table.columns, rowids: low...middle, rows: count / 2))
                parts.append(Part(table: table.name, columns: table.columns, rowids: (middle + 1)...high, rows: count - count / 2))
            } else {
                let rows = range.flatMap { row -> Int64? in if case .integer(let count) = row[2] { count } else { nil } } ?? 0
                parts.append(Part(table: table.name, columns: table.columns, rowids: nil, rows: rows))
            }
        }
        // Two shares of about the same rows: the largest parts first, each to the lighter share.
        var shares: [[Part]] = [[], []]
        var weights: [Int64] = [0, 0]
        for part in parts.sorted(by: { $0.rows > $1.rows }) {
            let lighter = weights[0] <= weights[1] ? 0 : 1
            shares[lighter].append(part)
            weights[lighter] += part.rows
        }
        let second = BackgroundWork { [shares] () throws -> SetDigest in try digest(of: shares[1], path: path) }
        var combined = try digest(of: shares[0], store: store)
        do {
            combined.formUnion(try second.value())
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, path: path, "\(error)")
        }
        try store.forEachRow(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        ) { row in
            let text = { (column: Int) -> String in if case .text(let value) = row.value(column) { value } else { "" } }
            combined.insert(Element.schema(type: text(0), name: text(1), table: text(2), sql: text(3)))
        }
        return combined
    }

    /// A table, or a range of its rowids, to read.
    private struct Part: Sendable {
        var table: String
        var columns: [String]
        var rowids: ClosedRange<Int64>?
        var rows: Int64
    }

    private static func digest(of parts: [Part], path: String) throws(StoreError) -> SetDigest {
        try digest(of: parts, store: StoreConnection(path: path, mode: .immutable))
    }

    /// The rows of `parts`, each encoded in place from SQLite's bytes into one reused buffer.
    private static func digest(of parts: [Part], store: StoreConnection) throws(StoreError) -> SetDigest {
        var digest = SetDigest()
        var encoding: [UInt8] = []
        encoding.reserveCapacity(4096)
        for part in parts {
            // `field("row") ‖ field(table) ‖ u32(n)`, then `field(column)` before each value.
            var prefix: [UInt8] = []
            Element.appendField("row", to: &prefix)
            Element.appendField(part.table, to: &prefix)
            Element.appendCount(part.columns.count, to: &prefix)
            let names = part.columns.map { name -> [UInt8] in
                var field: [UInt8] = []
                Element.appendField(name, to: &field)
                return field
            }
            var select = "SELECT \(part.columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(part.table))"
            var arguments: [StoreConnection.Value] = []
            if let rowids = part.rowids {
                select += " WHERE rowid BETWEEN ? AND ?"
                arguments = [.integer(rowids.lowerBound), .integer(rowids.upperBound)]
            }
            try store.forEachRow(select, arguments) { row in
                encoding.removeAll(keepingCapacity: true)
                encoding.append(contentsOf: prefix)
                for column in 0..<names.count {
                    encoding.append(contentsOf: names[column])
                    switch row.type(column) {
                    case .null: encoding.append(0)
                    case .integer: Element.appendWord(1, UInt64(bitPattern: row.integer(column)), to: &encoding)
                    case .real: Element.appendWord(2, row.real(column).bitPattern, to: &encoding)
                    case .text, .blob:
                        encoding.append(row.type(column) == .text ? 3 : 4)
                        row.withBytes(column) { bytes in
                            Element.appendCount(bytes.count, to: &encoding)
                            encoding.append(contentsOf: bytes)
                        }
                    }
                }
                encoding.withUnsafeBytes { digest.add($0, sign: 1) }
            }
        }
        return digest
    }
}
