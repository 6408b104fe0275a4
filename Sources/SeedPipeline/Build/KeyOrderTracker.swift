import Foundation
import SeedModel
import SeedStore

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
        /// Whether the number kept is `number` (a REAL) rather than `integer`: one column can give
        /// both (a Core Data date, kept as an INTEGER when whole).
        var isReal = false
        var line = 0

        /// Compares `value` with this key as SQLite's BINARY collation and numeric order do.
        func compare(_ value: Value) -> Int {
            guard line != 0 else { return 1 }
            switch value {
            case .integer(let number) where isReal: return Self.compare(number, self.number)
            case .integer(let number): return number > integer ? 1 : number == integer ? 0 : -1
            case .real(let number) where !isReal: return -Self.compare(integer, number)
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

        /// The sign of `integer - real`, as SQLite compares an INTEGER with a REAL (exactly, not
        /// through a rounded conversion of either).
        static func compare(_ integer: Int64, _ real: Double) -> Int {
            if real < -9_223_372_036_854_775_808.0 { return 1 }
            if real >= 9_223_372_036_854_775_808.0 { return -1 }
            let truncated = Int64(real)
            if integer != truncated { return integer < truncated ? -1 : 1 }
            let converted = Double(integer)
            return converted < real ? -1 : converted > real ? 1 : 0
        }

        mutating func keep(_ value: Value, line: Int) {
            self.line = line
            switch value {
            case .integer(let number):
                integer = number
                isReal = false
            case .real(let number):
                self.number = number
                isReal = true
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

    /// Observes the key of the row being written into a batch: `slot`, its value there.
    mutating func observe(_ slot: RowBatch.Slot, arena: UnsafeRawBufferPointer, line: Int) -> Observation {
        if isStaging { return .staging }
        switch slot {
        case .null:
            return .ascending
        case .integer(let number):
            return observe(.integer(number), line: line)
        case .real(let number):
            return observe(.real(number), line: line)
        case .text(let start, let count), .blob(let start, let count):
            return observe(.bytes(UnsafeRawBufferPointer(rebasing: arena[start..<(start + count)])), line: line)
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
