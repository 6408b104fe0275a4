import Foundation

/// A loaded table's keys, as SQLite's `CAST(key AS TEXT)` gives them, each to its row's primary key:
/// what a reference field is matched against.
///
/// Keys match byte for byte, as SQLite compares text. A `[String: Int64]` matched by Unicode
/// canonical equivalence instead: two keys SQLite holds apart (`é` written precomposed and
/// decomposed) shared one entry, and references to the first went to the second. Looking a field
/// up by its bytes also makes no `String` per reference (one per row of a build).
struct ReferenceKeys: Sendable {
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
    init() {
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

    func primaryKey(_ key: String) -> Int64? {
        var key = key
        return key.withUTF8 { primaryKey(UnsafeRawBufferPointer($0)) }
    }

    private func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        return text.withUnsafeBytes { text in
            while true {
                let index = Int(slots[slot])
                if index < 0 { return nil }
                let entry = entries[index]
                if entry.hash == hash, entry.count == key.count,
                    key.count == 0 || memcmp(text.baseAddress! + entry.start, key.baseAddress!, key.count) == 0 {
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
