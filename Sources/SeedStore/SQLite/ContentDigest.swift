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
/// derives from it. The dump, for each table in name order: `field(table name)`, then each row in
/// primary-key order, each column in table order as one tag byte — 0 NULL, 1 integer (8 bytes
/// big-endian two's complement), 2 real (IEEE 754 bits, 8 bytes big-endian), 3 text and 4 blob
/// (u32 big-endian length, then the bytes) — where `field(s)` is u32 length then UTF-8 bytes.
public enum ContentDigest {
    /// The digest as 64 lowercase hex characters.
    public static func compute(_ db: Database, schema: StoreSchema) throws -> String {
        var hasher = SHA256()
        var queries: [(String, String)] = schema.tables.map { table in
            let columns = table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
            return (table.name, "SELECT \(columns) FROM \(quoteIdentifier(table.name)) ORDER BY \(quoteIdentifier(table.keyColumn))")
        }
        queries += schema.joinTables.map { join in
            (join.name, "SELECT * FROM \(quoteIdentifier(join.name)) ORDER BY \"source\", \"destination\"")
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        for (name, sql) in queries.sorted(by: { $0.0 < $1.0 }) {
            append(field: Array(name.utf8), to: &buffer)
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
                    appendValue(handle, column, to: &buffer)
                }
                if buffer.count >= 1 << 16 {
                    hasher.update(data: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            sqlite3_reset(handle)
        }
        hasher.update(data: buffer)
        return Data(hasher.finalize()).hexString
    }

    private static func appendValue(_ handle: OpaquePointer, _ column: Int32, to buffer: inout [UInt8]) {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            buffer.append(1)
            append(UInt64(bitPattern: sqlite3_column_int64(handle, column)), to: &buffer)
        case SQLITE_FLOAT:
            buffer.append(2)
            append(sqlite3_column_double(handle, column).bitPattern, to: &buffer)
        case SQLITE_TEXT:
            buffer.append(3)
            let count = Int(sqlite3_column_bytes(handle, column))
            let text = sqlite3_column_text(handle, column)
            append(field: UnsafeBufferPointer(start: text, count: count), to: &buffer)
        case SQLITE_BLOB:
            buffer.append(4)
            let count = Int(sqlite3_column_bytes(handle, column))
            let blob = sqlite3_column_blob(handle, column)?.assumingMemoryBound(to: UInt8.self)
            append(field: UnsafeBufferPointer(start: blob, count: count), to: &buffer)
        default:
            buffer.append(0)
        }
    }

    private static func append(_ value: UInt64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    private static func append<C: Collection>(field bytes: C, to buffer: inout [UInt8]) where C.Element == UInt8 {
        withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: bytes)
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
