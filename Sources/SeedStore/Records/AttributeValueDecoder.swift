import Foundation
import SeedModel

/// Decodes one attribute value: numbers, text, Booleans, and Date (seconds since 1970), UUID, URL,
/// Decimal and Data as stored (see `docs/store-format.md`); other `Decodable` types, such as
/// `RawRepresentable` enums, through a single-value container.
struct AttributeValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: StoreValue
    /// The attribute's name and type, for messages.
    let name: String
    let type: AttributeType
    let entity: String
    /// The record's path and the attribute's key, joined only when asked (for an error), as a
    /// decoder is made for every attribute of every record.
    let parentPath: [any CodingKey]
    let key: any CodingKey
    var codingPath: [any CodingKey] { parentPath + [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value, or nil when it is null.
    func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        value.isNull ? nil : try decode(type)
    }

    func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { value.isNull ? nil : try decode(type) }
    func decodeIfPresent(_ type: String.Type) throws -> String? { value.isNull ? nil : try decode(type) }
    func decodeIfPresent(_ type: Double.Type) throws -> Double? { value.isNull ? nil : try decode(type) }
    func decodeIfPresent(_ type: Int.Type) throws -> Int? { value.isNull ? nil : try decode(type) }
    func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { value.isNull ? nil : try decode(type) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw mismatch([String: Any].self, "an attribute is one value, not a keyed record")
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw mismatch([Any].self, "an attribute is one value, not a list")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        switch try present(type).integerValue {
        case 0: false
        case 1: true
        default: throw mismatch(type, "it is \(value.displayText)")
        }
    }

    func decode(_ type: String.Type) throws -> String {
        guard let text = try present(type).stringValue else { throw mismatch(type, "it is \(value.displayText)") }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard let number = try present(type).doubleValue else { throw mismatch(type, "it is \(value.displayText)") }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if type == Date.self {
            guard let seconds = try present(type).doubleValue else {
                throw mismatch(type, "it is \(value.displayText), not seconds since 1970")
            }
            return Date(timeIntervalSince1970: seconds) as! T
        }
        if type == UUID.self {
            guard let uuid = try present(type).stringValue.flatMap(UUID.init(uuidString:)) else {
                throw mismatch(type, "it is \(value.displayText)")
            }
            return uuid as! T
        }
        if type == URL.self {
            guard let url = try present(type).stringValue.flatMap({ URL(string: $0) }) else {
                throw mismatch(type, "it is \(value.displayText)")
            }
            return url as! T
        }
        if type == Decimal.self {
            let decimal: Decimal? =
                switch try present(type) {
                case .text(let text): Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
                case .integer(let number): Decimal(number)
                case .real(let number): Decimal(number)
                default: nil
                }
            guard let decimal else { throw mismatch(type, "it is \(value.displayText)") }
            return decimal as! T
        }
        if type == Data.self {
            guard let data = try present(type).dataValue else { throw mismatch(type, "it is \(value.displayText)") }
            return data as! T
        }
        return try T(from: self)
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard let number = try present(type).integerValue else { throw mismatch(type, "it is \(value.displayText)") }
        guard let fitting = T(exactly: number) else { throw mismatch(type, "\(number) does not fit") }
        return fitting
    }

    private func present<T>(_ type: T.Type) throws -> StoreValue {
        guard !value.isNull else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath, debugDescription: "\(entity).\(name) has no value; make the record's property optional")
            )
        }
        return value
    }

    private func mismatch<T>(_ type: T.Type, _ reason: String) -> DecodingError {
        .typeMismatch(
            type,
            .init(
                codingPath: codingPath,
                debugDescription: "\(entity).\(name) (\(self.type.rawValue)) cannot be decoded as \(type): \(reason)"))
    }
}
