import Foundation

/// One SQLite value exactly as stored, in SQLite's five storage classes: what ``StoreConnection``
/// binds and reads, and what a delta carries (``DeltaValue``) — never through a decimal or JSON
/// round trip.
///
/// Equality is exact too: reals compare by their IEEE-754 bits (so `-0.0 != 0.0` and a NaN equals
/// itself), text by its UTF-8 bytes (Swift's `String ==` would call composed and decomposed
/// accents equal), and an integer never equals a real of the same value. The runtime's
/// `StoreValue` (SeedStore) is the other kind: an attribute's value, compared as a value.
package enum SQLiteValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The tag byte of the encoding, as ``ContentDigest`` tags values.
    package var tag: UInt8 {
        switch self {
        case .null: 0
        case .integer: 1
        case .real: 2
        case .text: 3
        case .blob: 4
        }
    }
}

extension SQLiteValue: Hashable {
    /// Exact equality: the same case and the same bits (reals), UTF-8 bytes (text) or bytes (blobs).
    package static func == (lhs: SQLiteValue, rhs: SQLiteValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.integer(a), .integer(b)): a == b
        case let (.real(a), .real(b)): a.bitPattern == b.bitPattern
        case let (.text(a), .text(b)): a.utf8.elementsEqual(b.utf8)
        case let (.blob(a), .blob(b)): a == b
        default: false
        }
    }

    /// Hashes the case and the exact bits, bytes or value, as ``==(_:_:)`` compares them.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(tag)
        switch self {
        case .null: break
        case .integer(let value): hasher.combine(value)
        case .real(let value): hasher.combine(value.bitPattern)
        case .text(let value): for byte in value.utf8 { hasher.combine(byte) }
        case .blob(let value): hasher.combine(value)
        }
    }
}

/// A value as a delta carries it: a stored SQLite value, exactly.
package typealias DeltaValue = SQLiteValue
