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

/// Watches the key of a `WITHOUT ROWID` table row by row, against the row before and the highest
/// key so far. Keys above the highest are appended; a key equal to the row before's (or to the
/// highest) is a duplicate of that line; a key below the row before's starts a new ascending run.
/// Naturally sorted postcode exports (AB1 … AB9, AB10 … AB40) descend once per area and then climb
/// in runs that lie below the highest key, so runs go straight into the keyed table, several rows
/// to a statement when no key already there lies between a run piece's first and last. Past
/// ``descentLimit`` descents the input is really shuffled and the rest goes to the staging table.
struct KeyOrderTracker {
    enum Observation {
        /// Above every key so far.
        case ascending
        /// Above the row before's key, below the highest so far.
        case run
        /// Below the row before's key: the start of a run.
        case descent
        case duplicate(previousLine: Int)
        case staging

        /// Where a row observed so goes into a keyed table.
        var placement: RowBatch.Placement {
            switch self {
            case .run: .run
            case .descent: .descent
            case .staging: .staged
            case .ascending, .duplicate: .direct
            }
        }
    }

    /// Descents tolerated before the rest is staged: a natural-order export has one per area with
    /// ten or more districts (about a hundred for the whole UK), a shuffled file one every other
    /// row. Each costs a short statement or a few single-row inserts; staging every later row
    /// writes it twice and sorts the keys twice.
    static let descentLimit = 4_096

    let feed: Int
    let field: Int
    private(set) var isStaging = false
    private(set) var descents = 0
    private var previous = Key()
    private var highest = Key()
    /// Whether the row before held the highest key (then `previous` is stale): saves a copy per row.
    private var previousIsHighest = true

    /// One key value and its line, kept in a buffer reused from row to row.
    private struct Key {
        var bytes: [UInt8] = []
        var number: Double = 0
        var integer: Int64 = 0
        var line = 0

        /// Compares `value` with this key as SQLite's BINARY collation and numeric order do.
        func compare(_ value: Value) -> Int {
            guard line != 0 else { return 1 }
            switch value {
            case .integer(let number): return number > integer ? 1 : number == integer ? 0 : -1
            case .real(let number): return number > self.number ? 1 : number == self.number ? 0 : -1
            case .bytes(let other):
                return bytes.withUnsafeBytes { mine in
                    let common = min(mine.count, other.count)
                    let prefix = common == 0 ? 0 : memcmp(other.baseAddress!, mine.baseAddress!, common)
                    if prefix != 0 { return prefix < 0 ? -1 : 1 }
                    return other.count < mine.count ? -1 : other.count == mine.count ? 0 : 1
                }
            }
        }

        mutating func keep(_ value: Value, line: Int) {
            self.line = line
            switch value {
            case .integer(let number): integer = number
            case .real(let number): self.number = number
            case .bytes(let other):
                bytes.removeAll(keepingCapacity: true)
                bytes.append(contentsOf: other)
            }
        }
    }

    private enum Value {
        case integer(Int64)
        case real(Double)
        case bytes(UnsafeRawBufferPointer)
    }

    init(feed: Int, field: Int) {
        self.feed = feed
        self.field = field
    }

    mutating func observe(_ record: CSVRecord, values: RowValues) -> Observation {
        if isStaging { return .staging }
        switch values[feed] {
        case .null:
            return .ascending
        case .value(.integer(let number)):
            return observe(.integer(number), line: record.line)
        case .value(.real(let number)):
            return observe(.real(number), line: record.line)
        case .value(.text(var text)):
            return text.withUTF8 { observe(.bytes(UnsafeRawBufferPointer($0)), line: record.line) }
        case .value(.fieldText):
            return record.withField(field) { observe(.bytes($0), line: record.line) }
        case .value(.blob(let bytes)):
            return bytes.withUnsafeBytes { observe(.bytes($0), line: record.line) }
        }
    }

    private mutating func observe(_ value: Value, line: Int) -> Observation {
        let aboveHighest = highest.compare(value)
        if aboveHighest > 0 {
            highest.keep(value, line: line)
            previousIsHighest = true
            return .ascending
        }
        if aboveHighest == 0 { return .duplicate(previousLine: highest.line) }
        let abovePrevious = previousIsHighest ? aboveHighest : previous.compare(value)
        if abovePrevious == 0 { return .duplicate(previousLine: previous.line) }
        if abovePrevious < 0 {
            guard descents < Self.descentLimit else {
                isStaging = true
                return .staging
            }
            descents += 1
        }
        previous.keep(value, line: line)
        previousIsHighest = false
        return abovePrevious < 0 ? .descent : .run
    }
}
