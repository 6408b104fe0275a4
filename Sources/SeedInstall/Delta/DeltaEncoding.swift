import Foundation

/// The uncompressed bytes of a delta: big-endian numbers, length-prefixed strings, tagged values.
/// The decoder is below; the build writes them (`SeedPipeline/Delta/DeltaEncoder.swift`).
package enum DeltaEncoding {
    package static let magic = Array("SEEDDLTA".utf8)
    package static let version: UInt32 = 1
    /// The operation byte ending the operations, followed by their count.
    package static let end: UInt8 = 0
}

/// Reads the uncompressed bytes of a delta, checking every length and index against what is left.
package struct DeltaDecoder {
    let bytes: [UInt8]
    var offset = 0
    let shouldStop: (() -> Bool)?

    package init(_ bytes: [UInt8], stopWhen shouldStop: (() -> Bool)? = nil) {
        self.bytes = bytes
        self.shouldStop = shouldStop
    }

    /// The whole delta, or an error saying where it stops making sense.
    package mutating func decode() throws(DeltaError) -> Delta {
        guard bytes.starts(with: DeltaEncoding.magic) else { throw DeltaError(.corrupt, "not a seedbuild delta (no SEEDDLTA magic)") }
        offset = DeltaEncoding.magic.count
        let version = try uint32()
        guard version == DeltaEncoding.version else {
            throw DeltaError(.corrupt, "delta format version \(version); this seedbuild reads version \(DeltaEncoding.version)")
        }
        let from = DeltaRelease(dataVersion: Int64(bitPattern: try uint64()), contentDigest: try string())
        let to = DeltaRelease(dataVersion: Int64(bitPattern: try uint64()), contentDigest: try string())
        var tables: [DeltaTable] = []
        for _ in 0..<(try count(atLeast: 9)) {
            let name = try string()
            let columns = try (0..<(try count(atLeast: 4))).map { _ throws(DeltaError) in try string() }
            let keys = try (0..<(try count(atLeast: 4))).map { _ throws(DeltaError) in try index() }
            guard keys.allSatisfy({ $0 < columns.count }), Set(keys).count == keys.count else {
                throw corrupt("table \(name) has a key column out of range")
            }
            tables.append(DeltaTable(name: name, columns: columns, keyColumns: keys))
        }
        var validator = DeltaOrder(tables: tables)
        var operations: [DeltaOperation] = []
        while true {
            let code = try byte()
            if code == DeltaEncoding.end { break }
            let operation = try self.operation(code: code, tables: tables)
            try validator.check(operation)
            operations.append(operation)
            if operations.count & 0xFFF == 0, let shouldStop, shouldStop() {
                throw DeltaError(.io, "decoding stopped at operation \(operations.count) (a deadline or a cancel)")
            }
        }
        guard try uint64() == UInt64(operations.count) else { throw corrupt("the operation count does not match") }
        guard offset == bytes.count else { throw corrupt("bytes follow the end of the delta") }
        return Delta(header: DeltaHeader(from: from, to: to, tables: tables), operations: operations)
    }

    private mutating func operation(code: UInt8, tables: [DeltaTable]) throws(DeltaError) -> DeltaOperation {
        let index = try self.index()
        guard index < tables.count else { throw corrupt("an operation names table \(index) of \(tables.count)") }
        let table = tables[index]
        switch code {
        case 1: return .clear(table: index)
        case 2: return .delete(table: index, key: try values(table.keyColumns.count))
        case 3: return .insert(table: index, row: try values(table.columns.count))
        case 4:
            let key = try values(table.keyColumns.count)
            let changes = try (0..<(try count(atLeast: 5))).map { _ throws(DeltaError) in
                DeltaChange(column: try self.index(), value: try value())
            }
            return .update(table: index, key: key, changes: changes)
        default: throw corrupt("unknown operation \(code)")
        }
    }

    private mutating func values(_ count: Int) throws(DeltaError) -> [DeltaValue] {
        var values: [DeltaValue] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try value()) }
        return values
    }

    private mutating func value() throws(DeltaError) -> DeltaValue {
        switch try byte() {
        case 0: .null
        case 1: .integer(Int64(bitPattern: try uint64()))
        case 2: .real(Double(bitPattern: try uint64()))
        case 3: .text(try string())
        case 4: .blob(Array(try field()))
        case let tag: throw corrupt("unknown value tag \(tag)")
        }
    }

    private func corrupt(_ why: String) -> DeltaError {
        DeltaError(.corrupt, "corrupt delta at byte \(offset): \(why)")
    }

    private mutating func take(_ count: Int) throws(DeltaError) -> ArraySlice<UInt8> {
        guard count <= bytes.count - offset else { throw corrupt("the data ends early; it is truncated") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    private mutating func byte() throws(DeltaError) -> UInt8 { try take(1).first! }

    private mutating func uint32() throws(DeltaError) -> UInt32 {
        try take(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    private mutating func uint64() throws(DeltaError) -> UInt64 {
        try take(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A u32 as an `Int`, refused where an `Int` cannot hold it (a 32-bit platform, such as watchOS's arm64_32).
    private mutating func index() throws(DeltaError) -> Int {
        let number = try uint32()
        guard let index = Int(exactly: number) else { throw corrupt("a number of \(number) exceeds what this platform indexes") }
        return index
    }

    /// A count of items each at least `size` bytes long, refused when the rest could not hold them
    /// (so a damaged count cannot make the decoder reserve memory for it).
    private mutating func count(atLeast size: Int) throws(DeltaError) -> Int {
        let count = try index()
        guard count <= (bytes.count - offset) / size else { throw corrupt("a count of \(count) exceeds the data left") }
        return count
    }

    private mutating func field() throws(DeltaError) -> ArraySlice<UInt8> {
        try take(try index())
    }

    private mutating func string() throws(DeltaError) -> String {
        let bytes = try field()
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw corrupt("text that is not UTF-8") }
        return text
    }
}

/// The rules every delta's operations keep, checked as they are written and as they are read:
/// apply order, keyed operations only on keyed tables, inserts into a table without a key only
/// after it is cleared, updates never of a key column.
package struct DeltaOrder {
    package let tables: [DeltaTable]
    private var last: (table: Int, rank: Int) = (0, 0)
    private var cleared: Int?

    package init(tables: [DeltaTable]) {
        self.tables = tables
    }

    package mutating func check(_ operation: DeltaOperation) throws(DeltaError) {
        guard tables.indices.contains(operation.table) else {
            throw DeltaError(.inconsistent, "an operation names table \(operation.table) of \(tables.count)")
        }
        let table = tables[operation.table]
        guard (operation.table, operation.rank) >= last else {
            throw DeltaError(
                .inconsistent,
                "operations out of apply order at table \(table.name) (tables in header order; clear, deletes, inserts, updates)")
        }
        last = (operation.table, operation.rank)
        switch operation {
        case .clear:
            guard !table.isKeyed else { throw DeltaError(.inconsistent, "table \(table.name) has a primary key and is never cleared") }
            cleared = operation.table
        case .insert(_, let row):
            guard row.count == table.columns.count else {
                throw DeltaError(.inconsistent, "an insert into \(table.name) has \(row.count) values for \(table.columns.count) columns")
            }
            guard table.isKeyed || cleared == operation.table else {
                throw DeltaError(.inconsistent, "table \(table.name) has no primary key: inserts into it follow a clear")
            }
        case .delete(_, let key), .update(_, let key, _):
            guard table.isKeyed else { throw DeltaError(.inconsistent, "table \(table.name) has no primary key: it is replaced whole") }
            guard key.count == table.keyColumns.count else {
                throw DeltaError(.inconsistent, "a key of \(table.name) has \(key.count) values for \(table.keyColumns.count) columns")
            }
            if case .update(_, _, let changes) = operation {
                guard !changes.isEmpty, changes.allSatisfy({ $0.column < table.columns.count && !table.keyColumns.contains($0.column) })
                else {
                    throw DeltaError(.inconsistent, "an update of \(table.name) sets no column, a key column or a column out of range")
                }
            }
        }
    }
}
