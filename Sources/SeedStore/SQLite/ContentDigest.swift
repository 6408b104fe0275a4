import Crypto
import Foundation
import GRDB
#if canImport(SQLite3)
import SQLite3
#elseif canImport(GRDBSQLite)
import GRDBSQLite
#endif

/// SHA-256 over a canonical dump of a store's entity and join tables, ordered by key.
///
/// Two stores with the same rows have the same digest whatever their page layout; the store UUID
/// derives from it. Each table's dump is hashed alone: each row in primary-key order, each column in
/// table order as one tag byte — 0 NULL, 1 integer (8 bytes big-endian two's complement), 2 real
/// (IEEE 754 bits, 8 bytes big-endian), 3 text and 4 blob (u32 big-endian length, then the bytes).
/// The content digest is SHA-256 over, for each table in name order, `field(table name)` followed
/// by the table's 32-byte digest, where `field(s)` is a u32 big-endian length then UTF-8 bytes.
/// Hashing tables alone lets a loader hash a table while it writes it.
public enum ContentDigest {
    /// The digest as 64 lowercase hex characters.
    /// - Parameter known: table name → digest of tables already hashed while loading; the rest are read back.
    public static func compute(_ db: Database, schema: StoreSchema, known: [String: Data] = [:]) throws -> String {
        var tables: [(String, String)] = schema.tables.map { table in
            let columns = table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
            return (table.name, "SELECT \(columns) FROM \(quoteIdentifier(table.name)) ORDER BY \(quoteIdentifier(table.keyColumn))")
        }
        tables += schema.joinTables.map { join in
            (join.name, "SELECT * FROM \(quoteIdentifier(join.name)) ORDER BY \(quoteIdentifier(join.sourceColumn)), \(quoteIdentifier(join.destinationColumn))")
        }
        var combined = TableDigest()
        for (name, sql) in tables.sorted(by: { $0.0 < $1.0 }) {
            combined.appendField(Array(name.utf8))
            let digest = try known[name] ?? tableDigest(db, sql: sql)
            combined.appendRaw(Array(digest))
        }
        return combined.finalize().hexString
    }

    private static func tableDigest(_ db: Database, sql: String) throws -> Data {
        var digest = TableDigest()
        let statement = try db.makeStatement(sql: sql)
        let handle = statement.sqliteStatement
        let columns = sqlite3_column_count(handle)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            for column in 0..<columns {
                switch sqlite3_column_type(handle, column) {
                case SQLITE_INTEGER:
                    digest.append(integer: sqlite3_column_int64(handle, column))
                case SQLITE_FLOAT:
                    digest.append(real: sqlite3_column_double(handle, column))
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(handle, column))
                    digest.append(text: UnsafeRawBufferPointer(start: sqlite3_column_text(handle, column), count: count))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(handle, column))
                    digest.append(blob: UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, column), count: count))
                default:
                    digest.appendNull()
                }
            }
        }
        sqlite3_reset(handle)
        return digest.finalize()
    }

    /// A version-8 UUID (RFC 9562) made from the first 16 bytes of a hex digest, so the same content gives the same UUID.
    public static func storeUUID(fromDigest hex: String) -> String {
        var bytes = Array(Data(hexString: String(hex.prefix(32))) ?? Data(count: 16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }
}

/// The canonical value encoding of ``ContentDigest`` for one table, fed value by value.
public struct TableDigest {
    private var hasher = SHA256()
    private var buffer: [UInt8] = []

    public init() {
        buffer.reserveCapacity(1 << 16)
    }

    public mutating func appendNull() { buffer.append(0) }

    public mutating func append(integer value: Int64) {
        buffer.append(1)
        appendWord(UInt64(bitPattern: value))
    }

    public mutating func append(real value: Double) {
        buffer.append(2)
        appendWord(value.bitPattern)
    }

    public mutating func append(text bytes: UnsafeRawBufferPointer) {
        buffer.append(3)
        appendField(bytes)
    }

    public mutating func append(blob bytes: UnsafeRawBufferPointer) {
        buffer.append(4)
        appendField(bytes)
    }

    mutating func appendField<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: bytes)
        flushIfFull()
    }

    mutating func appendRaw(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
    }

    private mutating func appendWord(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
        flushIfFull()
    }

    private mutating func flushIfFull() {
        if buffer.count >= 1 << 16 {
            hasher.update(data: buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    public mutating func finalize() -> Data {
        hasher.update(data: buffer)
        buffer.removeAll()
        return Data(hasher.finalize())
    }
}
