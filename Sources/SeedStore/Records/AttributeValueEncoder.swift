import Foundation

/// Turns one Swift value into an attribute value as stored: numbers, text, Booleans (`0`/`1`),
/// Date (seconds since 1970), UUID and URL (their text), Decimal (its text), Data; other
/// `Encodable` types, such as `RawRepresentable` enums, through a single-value container.
struct AttributeValueEncoder: Encoder, SingleValueEncodingContainer {
    /// Where the encoded value lands.
    final class Result {
        var value: StoreValue?
    }

    let codingPath: [any CodingKey]
    let result = Result()
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The stored form of `value`.
    /// - Throws: ``EncodingError`` for a value that is not one attribute value (a list, a keyed record).
    static func storeValue<T: Encodable>(of value: T, codingPath: [any CodingKey]) throws -> StoreValue {
        switch value {
        case let date as Date: return StoreValue(date)
        case let uuid as UUID: return StoreValue(uuid)
        case let url as URL: return StoreValue(url)
        case let decimal as Decimal: return StoreValue(decimal)
        case let data as Data: return StoreValue(data)
        default:
            var encoder = AttributeValueEncoder(codingPath: codingPath)
            try encoder.encode(value)
            guard let stored = encoder.result.value else {
                throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(T.self) encoded no value"))
            }
            return stored
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            FailingKeyedEncodingContainer<Key>(
                codingPath: codingPath, reason: "an attribute holds one value, not a keyed record; make it a relationship"))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        FailingEncodingContainer(
            codingPath: codingPath, reason: "an attribute holds one value, not a list; make it a to-many relationship or Binary data")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    mutating func encodeNil() throws { result.value = .null }
    mutating func encode(_ value: Bool) throws { result.value = .integer(value ? 1 : 0) }
    mutating func encode(_ value: String) throws { result.value = .text(value) }
    mutating func encode(_ value: Double) throws { result.value = .real(value) }
    mutating func encode(_ value: Float) throws { result.value = .real(Double(value)) }
    mutating func encode(_ value: Int) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: Int8) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: Int16) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: Int32) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: Int64) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: UInt) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: UInt8) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: UInt16) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: UInt32) throws { result.value = try Self.integer(value, codingPath) }
    mutating func encode(_ value: UInt64) throws { result.value = try Self.integer(value, codingPath) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        switch value {
        case is Date, is UUID, is URL, is Decimal, is Data: result.value = try Self.storeValue(of: value, codingPath: codingPath)
        default: try value.encode(to: self)
        }
    }

    private static func integer<T: BinaryInteger>(_ value: T, _ codingPath: [any CodingKey]) throws -> StoreValue {
        guard let number = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) does not fit a 64-bit integer attribute"))
        }
        return .integer(number)
    }
}
