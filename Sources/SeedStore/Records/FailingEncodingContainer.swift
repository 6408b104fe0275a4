/// A container for a shape a record cannot take (a nested record, a list where an object is):
/// every write throws ``EncodingError`` saying what to encode instead.
struct FailingEncodingContainer: SingleValueEncodingContainer, UnkeyedEncodingContainer {
    let codingPath: [any CodingKey]
    let reason: String
    var count: Int { 0 }

    func fail() throws -> Never {
        throw EncodingError.invalidValue(reason, .init(codingPath: codingPath, debugDescription: reason))
    }

    mutating func encodeNil() throws { try fail() }
    mutating func encode(_ value: Bool) throws { try fail() }
    mutating func encode(_ value: String) throws { try fail() }
    mutating func encode(_ value: Double) throws { try fail() }
    mutating func encode(_ value: Float) throws { try fail() }
    mutating func encode(_ value: Int) throws { try fail() }
    mutating func encode(_ value: Int8) throws { try fail() }
    mutating func encode(_ value: Int16) throws { try fail() }
    mutating func encode(_ value: Int32) throws { try fail() }
    mutating func encode(_ value: Int64) throws { try fail() }
    mutating func encode(_ value: UInt) throws { try fail() }
    mutating func encode(_ value: UInt8) throws { try fail() }
    mutating func encode(_ value: UInt16) throws { try fail() }
    mutating func encode(_ value: UInt32) throws { try fail() }
    mutating func encode(_ value: UInt64) throws { try fail() }
    mutating func encode<T: Encodable>(_ value: T) throws { try fail() }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingKeyedEncodingContainer(codingPath: codingPath, reason: reason))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath, reason: reason) }
}

/// The keyed form of ``FailingEncodingContainer``.
struct FailingKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let codingPath: [any CodingKey]
    let reason: String

    private var failing: FailingEncodingContainer { FailingEncodingContainer(codingPath: codingPath, reason: reason) }
    func fail() throws -> Never { try failing.fail() }

    mutating func encodeNil(forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: String, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Double, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Float, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Int, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try fail() }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try fail() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try fail() }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
        NestedKey
    > {
        KeyedEncodingContainer(FailingKeyedEncodingContainer<NestedKey>(codingPath: codingPath, reason: reason))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { failing }
    mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath, reason: reason) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder(codingPath: codingPath, reason: reason) }
}

/// An encoder whose every container is a failing one.
struct FailingEncoder: Encoder {
    let codingPath: [any CodingKey]
    let reason: String
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FailingKeyedEncodingContainer<Key>(codingPath: codingPath, reason: reason))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { FailingEncodingContainer(codingPath: codingPath, reason: reason) }
    func singleValueContainer() -> any SingleValueEncodingContainer { FailingEncodingContainer(codingPath: codingPath, reason: reason) }
}
