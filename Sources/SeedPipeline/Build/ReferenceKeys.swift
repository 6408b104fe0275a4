import Foundation
import SeedStore

/// A loaded table's keys, each to its row's primary key: what a reference field, or a link file's
/// key fields, are matched against.
///
/// Each key is the bytes ``KeyPart`` makes of the stored value (parts joined by U+001F), and a
/// field is looked up by the bytes it makes of the field's text: both sides meet at the value the
/// table keeps, whatever the type and however the field writes it. Keys match byte for byte, as
/// SQLite compares text. A `[String: Int64]` matched by Unicode canonical equivalence instead: two
/// keys SQLite holds apart (`é` written precomposed and decomposed) shared one entry, and
/// references to the first went to the second. Looking a text field up by its bytes also makes no
/// `String` per reference (one per row of a build).
struct ReferenceKeys: Sendable {
    /// The key's attributes as the table keeps them, in the constraint's order (none for a table
    /// not loaded, which matches nothing).
    let parts: [KeyPart]
    /// Whether a field's own bytes are its key (one text part): the reference's hot path.
    private let isFieldText: Bool
    /// Every key's bytes, one after another.
    private var text: [UInt8] = []
    private var entries: [Entry] = []
    /// Open addressing: an index into `entries`, or -1 for an empty slot.
    private var slots: [Int32]
    private var mask: Int

    private struct Entry {
        let start: Int
        let count: Int
        let hash: UInt64
        var primaryKey: Int64
    }

    /// Kept under half full (doubling as keys are added), so probes stay short.
    init(parts: [KeyPart] = []) {
        self.parts = parts
        isFieldText = parts.count == 1 && parts[0].isFieldText
        slots = [Int32](repeating: -1, count: 16)
        mask = 15
    }

    /// Adds `key` (a key that is there already is given the new primary key).
    mutating func insert(_ key: UnsafeRawBufferPointer, primaryKey: Int64) {
        let hash = Self.hash(key)
        if let index = find(key, hash: hash) {
            entries[index].primaryKey = primaryKey
            return
        }
        if (entries.count + 1) * 2 > slots.count { grow() }
        entries.append(Entry(start: text.count, count: key.count, hash: hash, primaryKey: primaryKey))
        text.append(contentsOf: key)
        place(entries.count - 1)
    }

    /// The primary key of the row whose key is exactly `key`'s bytes.
    func primaryKey(_ key: UnsafeRawBufferPointer) -> Int64? {
        find(key, hash: Self.hash(key)).map { entries[$0].primaryKey }
    }

    /// What a record's key fields name.
    enum Match {
        case found(Int64)
        /// The fields are values of the key's types, and no row has them.
        case missing
        /// The field at `part` (an index into the fields given) holds no value of its type.
        case invalid(part: Int, ConversionFailure)
    }

    /// The row whose key the record's non-empty `fields` (one per part, in order) give.
    func match(_ record: CSVRecord, fields: [Int]) -> Match {
        guard parts.count == fields.count else { return .missing }
        if isFieldText {
            return record.withField(fields[0]) { primaryKey($0) }.map(Match.found) ?? .missing
        }
        var key: [UInt8] = []
        for (position, field) in fields.enumerated() {
            if position > 0 { key.append(0x1F) }
            if let failure = record.withField(field, { parts[position].appendKey(of: $0, to: &key) }) {
                return .invalid(part: position, failure)
            }
        }
        return key.withUnsafeBytes { primaryKey($0) }.map(Match.found) ?? .missing
    }

    /// The primary key a single-part key field names: the field's own bytes for text.
    func primaryKey(_ record: CSVRecord, field: Int) -> Int64? {
        if isFieldText { return record.withField(field) { primaryKey($0) } }
        guard parts.count == 1 else { return nil }
        var key: [UInt8] = []
        guard record.withField(field, { parts[0].appendKey(of: $0, to: &key) }) == nil else { return nil }
        return key.withUnsafeBytes { primaryKey($0) }
    }

    private func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        return text.withUnsafeBytes { text in
            while true {
                let index = Int(slots[slot])
                if index < 0 { return nil }
                let entry = entries[index]
                if entry.hash == hash, entry.count == key.count,
                    key.count == 0 || memcmp(text.baseAddress! + entry.start, key.baseAddress!, key.count) == 0
                {
                    return index
                }
                slot = (slot + 1) & mask
            }
        }
    }

    private mutating func place(_ index: Int) {
        var slot = Int(truncatingIfNeeded: entries[index].hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for index in entries.indices { place(index) }
    }

    /// FNV-1a over the bytes, its bits mixed down so the low ones (the slot) depend on all of them.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash ^ (hash >> 29)
    }
}
