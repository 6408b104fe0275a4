import Crypto
import Foundation

/// A homomorphic digest of a store's content as a set: every row of every table (metadata tables
/// included), each hashed with its table's name and column names, and every schema object's SQL.
///
/// It is LtHash (Bellare–Micciancio's additive hash, as Lewi et al. use it for Facebook's configuration
/// distribution): 1024 lanes of 16 bits; an element's hash is added to the lanes, each modulo 2¹⁶, and
/// removing it subtracts the same. So the digest of a release follows from its base's digest and the
/// rows a delta touches — old rows out, new rows in — and checking an update costs what changed.
/// `docs/store-format.md` ("The set digest") specifies it byte for byte, with a worked example.
///
/// An element's hash: the 32-byte SHA-256 of its encoding keys ChaCha20 (RFC 8439: a zero 96-bit
/// nonce, the block counter from 1), whose first 2048 bytes of keystream are the 1024 lanes,
/// little-endian. Swift Crypto gives both on every platform the package declares (ChaChaPoly's
/// ciphertext of zero bytes is that keystream). Security: LtHash16 with 1024 lanes is estimated at
/// over 200 bits (Lewi et al., "Securing Update Propagation with Homomorphic Hashing", 2019); the
/// element hash's SHA-256 bounds the whole at 128 bits against collisions.
package struct SetDigest: Sendable, Equatable {
    package static let laneCount = 1024
    /// The manifest member holding a release's set digest (signed with it).
    package static let manifestKey = "setDigest"
    /// The printed form's prefix, naming the construction and its version.
    package static let prefix = "lthash16-1024:"

    /// The lanes; all zero for the empty set.
    package private(set) var lanes: [UInt16]

    package init() {
        lanes = [UInt16](repeating: 0, count: Self.laneCount)
    }

    /// Reads the printed form (``description``); nil when it is not one.
    package init?(_ text: String) {
        guard text.hasPrefix(Self.prefix), let bytes = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
            bytes.count == Self.laneCount * 2
        else { return nil }
        lanes = (0..<Self.laneCount).map { UInt16(bytes[bytes.startIndex + 2 * $0]) | UInt16(bytes[bytes.startIndex + 2 * $0 + 1]) << 8 }
    }

    /// `lthash16-1024:` then the 2048 bytes of the lanes, little-endian, in base64.
    package var description: String {
        var bytes = [UInt8](repeating: 0, count: Self.laneCount * 2)
        for (index, lane) in lanes.enumerated() {
            bytes[2 * index] = UInt8(lane & 0xFF)
            bytes[2 * index + 1] = UInt8(lane >> 8)
        }
        return Self.prefix + Data(bytes).base64EncodedString()
    }

    /// Adds an element (its encoding, ``Element``).
    package mutating func insert(_ encoding: [UInt8]) {
        encoding.withUnsafeBytes { add($0, sign: 1) }
    }

    /// Removes an element added before (its encoding, ``Element``).
    package mutating func remove(_ encoding: [UInt8]) {
        encoding.withUnsafeBytes { add($0, sign: -1) }
    }

    /// Adds (`sign` 1) or removes (-1) the element whose encoding is `encoding`, its lanes read
    /// straight from the keystream.
    mutating func add(_ encoding: UnsafeRawBufferPointer, sign: Int) {
        let key = SymmetricKey(data: SHA256.hash(data: encoding))
        // The keystream from block 1: ChaChaPoly encrypts from counter 1 (RFC 8439, 2.8), and the
        // ciphertext of zero bytes is the keystream itself.
        // The nonce is made here: swift-crypto 3 does not declare `ChaChaPoly.Nonce` Sendable, so it
        // cannot be a static constant (12 bytes, inline in `Data`: no allocation).
        let sealed = try! ChaChaPoly.seal(Self.zeros, using: key, nonce: ChaChaPoly.Nonce(data: Self.zeroNonce))
        sealed.ciphertext.withUnsafeBytes { bytes in
            lanes.withUnsafeMutableBufferPointer { lanes in
                for index in 0..<Self.laneCount {
                    let lane = UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8
                    lanes[index] = sign > 0 ? lanes[index] &+ lane : lanes[index] &- lane
                }
            }
        }
    }

    /// Adds every element of another digest (the digest of a disjoint set).
    package mutating func formUnion(_ other: SetDigest) {
        for index in 0..<Self.laneCount { lanes[index] &+= other.lanes[index] }
    }

    private static let zeros = Data(count: laneCount * 2)
    private static let zeroNonce = Data(count: 12)
}

extension SetDigest {
    /// The byte encoding of the elements: a row with its table and column names, or a schema object.
    ///
    /// `field(s)` is a string's UTF-8 bytes after their count as a u32, big-endian. A value is a tag
    /// byte — 0 NULL, 1 integer (8 bytes, big-endian two's complement), 2 real (the IEEE 754 bits,
    /// 8 bytes big-endian), 3 text and 4 blob (a u32 big-endian length, then the bytes) — as
    /// ``ContentDigest`` encodes them.
    package enum Element {
        /// `field("row")`, `field(table)`, the column count as a u32 big-endian, then per column
        /// `field(column name)` and its value.
        package static func row(table: String, columns: [String], values: [StoreConnection.Value]) -> [UInt8] {
            var bytes: [UInt8] = []
            appendField("row", to: &bytes)
            appendField(table, to: &bytes)
            appendCount(columns.count, to: &bytes)
            for (column, value) in zip(columns, values) {
                appendField(column, to: &bytes)
                append(value, to: &bytes)
            }
            return bytes
        }

        /// `field("schema")`, then `field` of the `sqlite_master` row's type, name, tbl_name and sql.
        package static func schema(type: String, name: String, table: String, sql: String) -> [UInt8] {
            var bytes: [UInt8] = []
            for text in ["schema", type, name, table, sql] { appendField(text, to: &bytes) }
            return bytes
        }

        static func appendField(_ text: String, to bytes: inout [UInt8]) {
            appendCount(text.utf8.count, to: &bytes)
            bytes.append(contentsOf: text.utf8)
        }

        static func appendCount(_ count: Int, to bytes: inout [UInt8]) {
            let value = UInt32(truncatingIfNeeded: count)
            bytes.append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
        }

        /// `tag`, then `word` in 8 bytes big-endian.
        static func appendWord(_ tag: UInt8, _ word: UInt64, to bytes: inout [UInt8]) {
            bytes.append(tag)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((word >> UInt64(shift)) & 0xFF)) }
        }

        static func append(_ value: StoreConnection.Value, to bytes: inout [UInt8]) {
            switch value {
            case .null: bytes.append(0)
            case .integer(let number): appendWord(1, UInt64(bitPattern: number), to: &bytes)
            case .real(let number): appendWord(2, number.bitPattern, to: &bytes)
            case .text(let text):
                bytes.append(3)
                appendField(text, to: &bytes)
            case .blob(let blob):
                bytes.append(4)
                appendCount(blob.count, to: &bytes)
                bytes.append(contentsOf: blob)
            }
        }
    }
}
