import Crypto
import Foundation

/// SHA-256 over a canonical dump of a store's entity and join tables, ordered by key.
///
/// Two stores with the same rows have the same digest whatever their page layout; the store UUID
/// derives from it. Each table's dump is hashed alone: each row in primary-key order, each column in
/// table order as one tag byte — 0 NULL, 1 integer (8 bytes big-endian two's complement), 2 real
/// (IEEE 754 bits, 8 bytes big-endian), 3 text and 4 blob (u32 big-endian length, then the bytes).
/// The content digest is SHA-256 over, for each table in name order, `field(table name)` followed
/// by the table's 32-byte digest, where `field(s)` is a u32 big-endian length then UTF-8 bytes.
/// Hashing tables alone lets a loader hash a table while it writes it.
package enum ContentDigest {
    /// The digest as 64 lowercase hex characters.
    /// - Parameters:
    ///   - tables: each table's name and the `SELECT` dumping it: its columns in table order, rows by key.
    ///   - known: table name → digest of tables already hashed while loading; the rest are read back.
    package static func compute(_ store: StoreConnection, tables: [(name: String, select: String)], known: [String: Data] = [:])
        throws(StoreError) -> String
    {
        var combined = TableDigest()
        for (name, select) in tables.sorted(by: { $0.name < $1.name }) {
            combined.appendField(Array(name.utf8))
            if let digest = known[name] {
                combined.appendRaw(Array(digest))
            } else {
                combined.appendRaw(Array(try tableDigest(store, select: select)))
            }
        }
        return combined.finalize().hexString
    }

    private static func tableDigest(_ store: StoreConnection, select: String) throws(StoreError) -> Data {
        var digest = TableDigest()
        try store.forEachRow(select) { row in
            for column in 0..<row.count {
                switch row.type(column) {
                case .integer: digest.append(integer: row.integer(column))
                case .real: digest.append(real: row.real(column))
                case .text: row.withBytes(column) { digest.append(text: $0) }
                case .blob: row.withBytes(column) { digest.append(blob: $0) }
                case .null: digest.appendNull()
                }
            }
        }
        return digest.finalize()
    }

    /// A version-8 UUID (RFC 9562) made from the first 16 bytes of a hex digest, so the same content gives the same UUID.
    package static func storeUUID(fromDigest hex: String) -> String {
        var bytes = Array(Data(hexString: String(hex.prefix(32))) ?? Data(count: 16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }
}

/// The canonical value encoding of ``ContentDigest`` for one table, fed value by value.
///
/// Values are written in place into a fixed 64 KiB buffer, hashed when it fills: appending each field
/// to a growing array took 7% of a load's parsing thread in the profile. The buffer is plain memory
/// in a noncopyable struct: as an array, every value paid a uniqueness check, and as a class's
/// property, an exclusivity check; either way the encoding cost more than the SHA-256 over it.
package struct TableDigest: ~Copyable {
    @usableFromInline static let capacity = 1 << 16
    private var hasher = SHA256()
    /// The bytes not hashed yet: the first `count` of the buffer.
    @usableFromInline let buffer: UnsafeMutableRawPointer
    @usableFromInline var count = 0
    /// Where the encoded bytes go instead of the hash, when given.
    private var sink: ((UnsafeRawBufferPointer) -> Void)?

    package init() {
        buffer = .allocate(byteCount: Self.capacity, alignment: 8)
    }

    /// An encoder that hands its bytes to `sink` (at each ``flush()``) instead of hashing them: the
    /// build keeps rows encoded ahead of their place, to append them once the rows before them are in.
    package init(sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.init()
        self.sink = sink
    }

    deinit { buffer.deallocate() }

    @inlinable package mutating func appendNull() {
        if count + 1 > Self.capacity { flush() }
        buffer.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inlinable package mutating func append(integer value: Int64) { put(tag: 1, word: UInt64(bitPattern: value)) }

    @inlinable package mutating func append(real value: Double) { put(tag: 2, word: value.bitPattern) }

    @inlinable package mutating func append(text bytes: UnsafeRawBufferPointer) { put(tag: 3, field: bytes) }

    @inlinable package mutating func append(blob bytes: UnsafeRawBufferPointer) { put(tag: 4, field: bytes) }

    /// A length-prefixed field without a tag (a table's name in the combined digest).
    mutating func appendField<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let field = Array(bytes)
        withUnsafeBytes(of: UInt32(field.count).bigEndian) { update(with: $0) }
        field.withUnsafeBytes { update(with: $0) }
    }

    /// Bytes as they are, without tag or length.
    package mutating func appendRaw(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update(with: $0) }
    }

    /// A tag byte, then an 8-byte big-endian word.
    @inlinable mutating func put(tag: UInt8, word: UInt64) {
        if count + 9 > Self.capacity { flush() }
        buffer.storeBytes(of: tag, toByteOffset: count, as: UInt8.self)
        buffer.storeBytes(of: word.bigEndian, toByteOffset: count + 1, as: UInt64.self)
        count += 9
    }

    /// A tag byte, the field's length as a 4-byte big-endian number, then its bytes.
    @inlinable mutating func put(tag: UInt8, field: UnsafeRawBufferPointer) {
        guard 5 + field.count <= Self.capacity else { return putLong(tag: tag, field: field) }
        if count + 5 + field.count > Self.capacity { flush() }
        buffer.storeBytes(of: tag, toByteOffset: count, as: UInt8.self)
        buffer.storeBytes(of: UInt32(field.count).bigEndian, toByteOffset: count + 1, as: UInt32.self)
        if let source = field.baseAddress { (buffer + count + 5).copyMemory(from: source, byteCount: field.count) }
        count += 5 + field.count
    }

    /// A field longer than the buffer: its header goes through the buffer, its bytes straight to the hash.
    @usableFromInline mutating func putLong(tag: UInt8, field: UnsafeRawBufferPointer) {
        var header = [tag]
        withUnsafeBytes(of: UInt32(field.count).bigEndian) { header += $0 }
        header.withUnsafeBytes { update(with: $0) }
        update(with: field)
    }

    /// Bytes in order after those already written, through the buffer.
    private mutating func update(with bytes: UnsafeRawBufferPointer) {
        if count + bytes.count > Self.capacity { flush() }
        if bytes.count > Self.capacity {
            if let sink { sink(bytes) } else { hasher.update(bufferPointer: bytes) }
        } else if let source = bytes.baseAddress {
            (buffer + count).copyMemory(from: source, byteCount: bytes.count)
            count += bytes.count
        }
    }

    /// Hashes (or hands to the sink) the bytes the buffer holds.
    @usableFromInline package mutating func flush() {
        guard count > 0 else { return }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
        if let sink { sink(bytes) } else { hasher.update(bufferPointer: bytes) }
        count = 0
    }

    package mutating func finalize() -> Data {
        flush()
        return Data(hasher.finalize())
    }
}
