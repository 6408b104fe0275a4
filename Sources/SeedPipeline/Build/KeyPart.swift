import Foundation
import GRDB
import SeedModel
import SeedStore

/// One attribute of a key as a loaded table keeps it: how a CSV field naming an object by it, and
/// the value the table holds, become the same bytes for ``ReferenceKeys`` to match.
///
/// Both sides meet at the stored value. A field goes through the conversion the entity's own file
/// goes through (``FieldConverter``), then into the table's form as the loader writes it: in Core
/// Data's layout a date as seconds since 2001 and a Decimal as the number its `DECIMAL` column
/// makes of the text; a UUID's 16 stored bytes are read as the lowercase text the converter makes.
/// So `6F0C7C1E-…` finds the row loaded from `6f0c7c1e-…`, `007` the row of `7`, `2024-05-01` the
/// row of `2024-05-01T00:00:00Z`, and `1.50` the row of `1.5`.
/// Numbers compare by value, whether SQLite keeps them as INTEGER or REAL, as its own `=` does.
/// Every key is text a message can show: numbers in digits, a UUID in lowercase 8-4-4-4-12.
struct KeyPart: Sendable {
    let type: AttributeType
    /// Whether the table keeps the attribute in Core Data's form (``StoredForms/covers(_:)``).
    let keptAsCoreData: Bool

    /// Whether a field's own bytes are its key: a String, kept as given (a URI is checked first).
    var isFieldText: Bool { type == .string }

    /// Appends the key of a non-empty field's text, or returns why the text is no value of the type.
    func appendKey(of field: UnsafeRawBufferPointer, to key: inout [UInt8]) -> ConversionFailure? {
        let value: FieldValue
        switch FieldConverter.convert(field, as: type) {
        case .success(let converted): value = converted
        case .failure(let failure): return failure
        }
        switch value {
        case .integer(let number):
            Self.append(number, to: &key)
        case .real(let number) where type == .date && keptAsCoreData:
            // The loader's own arithmetic (``EntityLoader/coreDataDate(_:)``), so the bits are the stored ones.
            Self.append(number - CoreDataValues.referenceDateOffset, to: &key)
        case .real(let number):
            Self.append(number, to: &key)
        case .text(let text) where type == .decimal && keptAsCoreData:
            Self.appendNumeric(text, to: &key)
        case .text(let text):
            key.append(contentsOf: text.utf8)
        case .fieldText:
            key.append(contentsOf: field)
        case .blob(let bytes):
            key.append(contentsOf: bytes)
        }
        return nil
    }

    /// Appends the key of the value in `column` of `row` (not NULL).
    func appendStored(_ row: StoreConnection.Row, column: Int, to key: inout [UInt8]) {
        switch row.type(column) {
        case .integer:
            Self.append(row.integer(column), to: &key)
        case .real:
            Self.append(row.real(column), to: &key)
        case .blob:
            row.withBytes(column) { bytes in
                guard !bytes.isEmpty else { return }
                if type == .uuid, bytes.count == 16 {
                    // Core Data's 16 bytes, as the lowercase text the converter makes of a field.
                    Self.appendUUID(bytes, to: &key)
                } else {
                    key.append(contentsOf: bytes.dropFirst(keptAsCoreData && type == .binary ? 1 : 0))
                }
            }
        case .text, .null:
            row.withBytes(column) { key.append(contentsOf: $0) }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendUUID(_ bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        let digits = hexDigits
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { key.append(0x2D) }
            key.append(digits[Int(byte >> 4)])
            key.append(digits[Int(byte & 0x0F)])
        }
    }

    /// A number's key: its digits when it is whole and fits 64 bits (so REAL 7.0 and INTEGER 7
    /// meet), else the shortest text that reads back as the same double.
    private static func append(_ number: Double, to key: inout [UInt8]) {
        if let whole = Int64(exactly: number) {
            append(whole, to: &key)
        } else {
            key.append(contentsOf: number.description.utf8)
        }
    }

    private static func append(_ number: Int64, to key: inout [UInt8]) {
        guard number != 0 else { return key.append(0x30) }
        if number < 0 { key.append(0x2D) }
        let start = key.count
        var rest = number.magnitude
        while rest > 0 {
            key.append(UInt8(truncatingIfNeeded: rest % 10) + 0x30)
            rest /= 10
        }
        key[start...].reverse()
    }

    /// A Decimal's canonical text as its `DECIMAL` column (NUMERIC affinity) keeps it: an INTEGER
    /// when the text is a whole number that fits 64 bits, else a REAL.
    private static func appendNumeric(_ canonical: String, to key: inout [UInt8]) {
        if !canonical.contains("."), let whole = Int64(canonical) {
            append(whole, to: &key)
        } else if let number = Double(canonical) {
            append(number, to: &key)
        } else {
            key.append(contentsOf: canonical.utf8)
        }
    }
}

extension KeyPart {
    init(_ attribute: Attribute, in table: EntityTable) {
        self.init(type: attribute.type, keptAsCoreData: table.storedForms.covers(attribute))
    }
}

extension [KeyPart] {
    /// Appends the key of the current row's columns `first`, `first + 1`, …, one per part, joined by U+001F.
    func appendStored(_ row: StoreConnection.Row, from first: Int, to key: inout [UInt8]) {
        for (index, part) in enumerated() {
            if index > 0 { key.append(0x1F) }
            part.appendStored(row, column: first + index, to: &key)
        }
    }
}

extension [KeyPart] {
    /// The key of each row `sql` selects (its columns one per part), as text.
    func keys(_ db: Database, sql: String) throws -> [String] {
        let statement = try db.makeStatement(sql: sql)
        let rows = try Row.fetchCursor(statement)
        let row = StoreConnection.Row(borrowing: statement.sqliteStatement)
        var keys: [String] = []
        var bytes: [UInt8] = []
        while try rows.next() != nil {
            bytes.removeAll(keepingCapacity: true)
            appendStored(row, from: 0, to: &bytes)
            keys.append(String(decoding: bytes, as: UTF8.self))
        }
        return keys
    }
}
