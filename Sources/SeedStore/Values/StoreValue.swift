import Foundation

/// One stored value, in SQLite's five storage classes.
///
/// Attribute values cross the runtime API as ``StoreValue``: a Date is seconds since 1970 (`.real`),
/// a Boolean `0`/`1` (`.integer`), a Decimal, UUID or URI its canonical text (see `docs/store-format.md`).
public enum StoreValue: Sendable, Hashable, Codable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is `NULL`.
    public var isNull: Bool { self == .null }

    /// The integer, or a real with no fraction; nil otherwise.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): value.rounded(.towardZero) == value ? Int64(exactly: value) : nil
        default: nil
        }
    }

    /// The real, or an integer as a `Double`; nil otherwise.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    /// The text, or nil when the value is not text.
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, or nil when the value is not a blob.
    public var dataValue: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// The value as a plain Swift value for JSON output: Int64, Double, String, base64 text or nil.
    public var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .double(value)
        case .text(let value): .string(value)
        case .blob(let value): .string(value.base64EncodedString())
        }
    }

    /// Short human-readable text for tables and error messages.
    public var displayText: String {
        switch self {
        case .null: "nil"
        case .integer(let value): String(value)
        case .real(let value): FieldValue.sqliteText(value)
        case .text(let value): value
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}

extension StoreValue: Comparable {
    /// SQLite's ordering (NULL, then numbers, then text by bytes, then blobs), so results merged
    /// from several stores come out in the order each store's `ORDER BY` gives.
    public static func < (lhs: StoreValue, rhs: StoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        default: break
        }
        if let left = lhs.doubleValue, let right = rhs.doubleValue {
            if case .integer(let l) = lhs, case .integer(let r) = rhs { return l < r }
            return left < right
        }
        switch (lhs, rhs) {
        case (.integer, _), (.real, _): return true
        case (_, .integer), (_, .real): return false
        case (.text(let l), .text(let r)): return Array(l.utf8).lexicographicallyPrecedes(r.utf8)
        case (.text, _): return true
        case (_, .text): return false
        case (.blob(let l), .blob(let r)): return l.lexicographicallyPrecedes(r)
        default: return false
        }
    }
}

extension StoreValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral
{
    /// `.text` from a literal.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `.integer` from a literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `.real` from a literal.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// `.integer(1)` or `.integer(0)` from a literal, as a Boolean attribute stores it.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
    /// `.null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension StoreValue {
    /// A Date as stored: seconds since 1970.
    public init(_ date: Date) { self = .real(date.timeIntervalSince1970) }

    /// `.text`, or `.null` for nil.
    public init(_ value: String?) { self = value.map(StoreValue.text) ?? .null }

    /// `.integer`.
    public init(_ value: Int) { self = .integer(Int64(value)) }

    /// An Integer 64 attribute's value.
    public init(_ value: Int64) { self = .integer(value) }

    /// A Double or Float attribute's value.
    public init(_ value: Double) { self = .real(value) }

    /// A Boolean as stored: `1` or `0`.
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }

    /// A UUID as the runtime's API carries it: its canonical text (Core Data's layout stores the 16 bytes).
    public init(_ uuid: UUID) { self = .text(uuid.uuidString) }

    /// A URI attribute's value: the URL's absolute text.
    public init(_ url: URL) { self = .text(url.absoluteString) }

    /// A Decimal as the runtime's API carries it: its text, which keeps every digit.
    public init(_ decimal: Decimal) { self = .text(decimal.description) }

    /// A Binary attribute's value.
    public init(_ data: Data) { self = .blob(data) }
}

extension StoreValue {
    /// The stored form of a value converted from text (`fieldText` is the text it came from).
    package init(_ value: FieldValue, fieldText: String) {
        switch value {
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .fieldText: self = .text(fieldText)
        case .text(let text): self = .text(text)
        case .blob(let bytes): self = .blob(Data(bytes))
        }
    }

    /// The value as an SQL literal, for `DEFAULT` clauses (user values are always bound instead).
    public var sqlLiteral: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): FieldValue.sqliteText(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes): "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
