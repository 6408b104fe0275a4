import SeedInstall

/// Writes the format ``DeltaDecoder`` reads (``DeltaEncoding``): only a build writes deltas.
enum DeltaEncoder {
    static func append(_ number: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: number.bigEndian) { bytes += $0 }
    }

    static func append(_ number: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: number.bigEndian) { bytes += $0 }
    }

    /// A count or index as the format's u32, refused when it does not fit (negative, or 4 GiB or more).
    static func append(count number: Int, of what: @autoclosure () -> String, to bytes: inout [UInt8]) throws(DeltaError) {
        guard let fitting = UInt32(exactly: number) else {
            throw DeltaError(
                .corrupt, "\(what()) is \(number), which a delta cannot hold (a u32: 0 to \(UInt32.max)); the delta is not written")
        }
        append(fitting, to: &bytes)
    }

    static func append(field: some Collection<UInt8>, to bytes: inout [UInt8]) throws(DeltaError) {
        try append(count: field.count, of: "the length of a text or blob", to: &bytes)
        bytes += field
    }

    static func append(_ value: DeltaValue, to bytes: inout [UInt8]) throws(DeltaError) {
        bytes.append(value.tag)
        switch value {
        case .null: break
        case .integer(let number): append(UInt64(bitPattern: number), to: &bytes)
        case .real(let number): append(number.bitPattern, to: &bytes)
        case .text(let text): try append(field: text.utf8, to: &bytes)
        case .blob(let blob): try append(field: blob, to: &bytes)
        }
    }

    static func append(_ header: DeltaHeader, to bytes: inout [UInt8]) throws(DeltaError) {
        bytes += DeltaEncoding.magic
        append(DeltaEncoding.version, to: &bytes)
        for release in [header.from, header.to] {
            append(UInt64(bitPattern: release.dataVersion), to: &bytes)
            try append(field: release.contentDigest.utf8, to: &bytes)
        }
        try append(count: header.tables.count, of: "the number of tables", to: &bytes)
        for table in header.tables {
            try append(field: table.name.utf8, to: &bytes)
            try append(count: table.columns.count, of: "the number of columns of \(table.name)", to: &bytes)
            for column in table.columns { try append(field: column.utf8, to: &bytes) }
            try append(count: table.keyColumns.count, of: "the number of key columns of \(table.name)", to: &bytes)
            for index in table.keyColumns { try append(count: index, of: "a key column of \(table.name)", to: &bytes) }
        }
    }

    static func append(_ operation: DeltaOperation, to bytes: inout [UInt8]) throws(DeltaError) {
        bytes.append(UInt8(operation.rank + 1)) // the operation byte (DeltaOperation.rank)
        try append(count: operation.table, of: "an operation's table", to: &bytes)
        switch operation {
        case .clear: break
        case .delete(_, let key):
            for value in key { try append(value, to: &bytes) }
        case .insert(_, let row):
            for value in row { try append(value, to: &bytes) }
        case .update(_, let key, let changes):
            for value in key { try append(value, to: &bytes) }
            try append(count: changes.count, of: "the number of changes of an update", to: &bytes)
            for change in changes {
                try append(count: change.column, of: "an update's column", to: &bytes)
                try append(change.value, to: &bytes)
            }
        }
    }
}
