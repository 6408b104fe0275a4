import Foundation
import SeedModel
import SeedStore

/// The converted values of one row, one slot per insert parameter, reused from row to row.
struct RowValues {
    enum Slot {
        case null
        case value(FieldValue)
    }

    private var slots: [Slot]
    private var defaults: [FieldValue?]
    /// Feed index → CSV field, for values bound straight from the record's bytes.
    private(set) var fields: [Int?]

    init(mapping: ColumnMapping) {
        slots = Array(repeating: .null, count: mapping.feeds.count)
        defaults = mapping.feeds.map { feed in
            switch feed {
            case .attribute(_, let attribute), .absent(let attribute):
                guard let text = attribute.effectiveDefaultValue,
                    case .success(let value) = FieldConverter.convertDefault(text, as: attribute.type)
                else { return nil }
                if case .fieldText = value { return .text(text) }
                return value
            case .reference, .absentReference:
                return nil
            }
        }
        fields = mapping.feeds.map { feed in
            switch feed {
            case .attribute(let field, _): field
            case .reference(let fields, _, _, _): fields.first
            case .absent, .absentReference: nil
            }
        }
        for (index, feed) in mapping.feeds.enumerated() {
            if case .absent = feed { slots[index] = defaults[index].map(Slot.value) ?? .null }
        }
    }

    subscript(index: Int) -> Slot { slots[index] }

    mutating func set(_ index: Int, _ slot: Slot) { slots[index] = slot }

    func hasDefault(_ index: Int) -> Bool { defaults[index] != nil }

    mutating func useDefault(_ index: Int) { slots[index] = defaults[index].map(Slot.value) ?? .null }
}

/// Watches the key of a `WITHOUT ROWID` table row by row: ascending keys go straight in, an equal
/// key is a duplicate of the row before it, a few keys out of order (as in naturally sorted postcode
/// exports: AB1 … AB9, AB10) go straight in one by one, and once more than ``outOfOrderLimit`` have
/// come, everything after goes to the staging table (the input is really shuffled).
struct KeyOrderTracker {
    enum Observation {
        case ascending
        case duplicate(previousLine: Int)
        /// Below the highest key so far: inserted on its own, a duplicate found by the table's key.
        case outOfOrder
        case staging
    }

    /// Out-of-order keys inserted directly before the rest is staged: measured cheap in a b-tree
    /// (random inserts into the keyed table cost about 10 µs each), while staging every later row
    /// writes it twice and sorts the keys twice.
    static let outOfOrderLimit = 4_096

    let feed: Int
    let field: Int
    private(set) var isStaging = false
    private(set) var outOfOrderCount = 0
    private var previousBytes: [UInt8] = []
    private var previousNumber: Double = 0
    private var previousInteger: Int64 = 0
    private var previousLine = 0

    init(feed: Int, field: Int) {
        self.feed = feed
        self.field = field
    }

    mutating func observe(_ record: CSVRecord, values: RowValues) -> Observation {
        if isStaging { return .staging }
        let order: Int
        switch values[feed] {
        case .null:
            return .ascending
        case .value(.integer(let number)):
            order = previousLine == 0 ? 1 : (number > previousInteger ? 1 : number == previousInteger ? 0 : -1)
            if order >= 0 { previousInteger = number }
        case .value(.real(let number)):
            order = previousLine == 0 ? 1 : (number > previousNumber ? 1 : number == previousNumber ? 0 : -1)
            if order >= 0 { previousNumber = number }
        case .value(.text(var text)):
            order = text.withUTF8 { compare(UnsafeRawBufferPointer($0)) }
        case .value(.fieldText):
            order = record.withField(field) { compare($0) }
        case .value(.blob(let bytes)):
            order = bytes.withUnsafeBytes { compare($0) }
        }
        if order < 0 {
            // The highest key so far stays the one to compare with.
            guard outOfOrderCount < Self.outOfOrderLimit else {
                isStaging = true
                return .staging
            }
            outOfOrderCount += 1
            return .outOfOrder
        }
        let line = previousLine
        previousLine = record.line
        return order == 0 ? .duplicate(previousLine: line) : .ascending
    }

    /// Compares with the highest key so far as SQLite's BINARY collation does (memcmp, then
    /// length), and keeps the new one when it is not lower.
    private mutating func compare(_ bytes: UnsafeRawBufferPointer) -> Int {
        var order = 1
        if previousLine != 0 {
            order = previousBytes.withUnsafeBytes { previous in
                let common = min(previous.count, bytes.count)
                let prefix = common == 0 ? 0 : memcmp(bytes.baseAddress!, previous.baseAddress!, common)
                if prefix != 0 { return prefix < 0 ? -1 : 1 }
                return bytes.count < previous.count ? -1 : bytes.count == previous.count ? 0 : 1
            }
        }
        if order >= 0 {
            previousBytes.removeAll(keepingCapacity: true)
            previousBytes.append(contentsOf: bytes)
        }
        return order
    }
}
