import Foundation

/// A JSON value, as stored in a seed store's `seed_metadata` table.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON text (any value, not only objects and arrays).
    public init(jsonText: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(jsonText.utf8), options: [.fragmentsAllowed])
        self = try JSONValue(foundation: object)
    }

    /// Canonical JSON text: sorted keys, no insignificant white space.
    public var jsonText: String {
        let data = try! JSONSerialization.data(
            withJSONObject: foundationObject, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// Pretty-printed JSON text with sorted keys.
    public var prettyText: String {
        let data = try! JSONSerialization.data(
            withJSONObject: foundationObject, options: [.sortedKeys, .fragmentsAllowed, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// Converts what `JSONSerialization` returns (`NSNull`, `NSNumber`, `String`, arrays, dictionaries).
    /// - Throws: `CocoaError(.coderReadCorrupt)` for any other type.
    public init(foundation value: Any) throws {
        switch value {
        case is NSNull: self = .null
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
            } else if let int = Int64(exactly: number.doubleValue), !"fd".contains(String(cString: number.objCType)) {
                self = .integer(int)
            } else {
                self = .double(number.doubleValue)
            }
        case let string as String: self = .string(string)
        case let array as [Any]: self = .array(try array.map(JSONValue.init(foundation:)))
        case let object as [String: Any]: self = .object(try object.mapValues(JSONValue.init(foundation:)))
        default:
            throw CocoaError(.coderReadCorrupt)
        }
    }

    /// The value as `JSONSerialization` takes it.
    public var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.foundationObject)
        case .object(let values): values.mapValues(\.foundationObject)
        }
    }

    /// The string, or nil when the value is not one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, or nil when the value is not one.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The object's members, or nil when the value is not an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, or nil when the value is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    /// A ``string(_:)`` value from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An ``integer(_:)`` value from a literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A ``bool(_:)`` value from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
