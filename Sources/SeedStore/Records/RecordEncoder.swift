import Foundation
import SeedModel

/// Encodes an `Encodable` record into one managed object: keys are property names, Swift values
/// become attribute values as stored, object IDs set relationships.
///
/// The key `objectID` is skipped when the entity has no property of that name, so a record that
/// carries its object's ID can be written back. Values are checked against the model when the
/// context saves, as set by name.
struct RecordEncoder: Encoder {
    let object: ManagedObject
    let context: ObjectContext
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ObjectEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        FailingEncodingContainer(codingPath: codingPath, reason: "\(object.entity.name) is one object; encode a keyed record")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FailingEncodingContainer(codingPath: codingPath, reason: "\(object.entity.name) is one object; encode a keyed record")
    }
}

struct ObjectEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    private var object: ManagedObject { encoder.object }

    init(encoder: RecordEncoder) { self.encoder = encoder }

    private func property(_ key: Key) throws -> RecordProperty {
        try RecordProperty(
            key.stringValue, of: object.sharedEntity, record: "encoding \((codingPath + [key]).map(\.stringValue).joined(separator: "."))")
    }

    mutating func encodeNil(forKey key: Key) throws {
        switch try property(key) {
        case .attribute(let name, _): object[name] = .null
        case .relationship(let relationship) where !relationship.isToMany: try object.setObject(nil, forRelationship: relationship.name)
        case .relationship(let relationship):
            throw unsupported(key, "\(object.entity.name).\(relationship.name) is to-many; encode an array of ObjectID")
        case .objectID: break
        }
    }

    // The standard types encode as any other value.
    mutating func encode(_ value: Bool, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeValue(value, forKey: key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encodeValue(value, forKey: key) }

    private mutating func encodeValue<T: Encodable>(_ value: T, forKey key: Key) throws {
        switch try property(key) {
        case .objectID:
            return
        case .attribute(let name, _):
            object[name] = try AttributeValueEncoder.storeValue(of: value, codingPath: codingPath + [key])
        case .relationship(let relationship) where relationship.isToMany:
            guard let ids = value as? [ObjectID] else {
                throw unsupported(
                    key, "\(object.entity.name).\(relationship.name) is to-many: encode an array of the destinations' ObjectID")
            }
            let current = try object.objects(forRelationship: relationship.name)
            let wanted = try ids.map { try encoder.context.object(with: $0) }
            for old in current where !wanted.contains(where: { $0 === old }) {
                try object.removeObject(old, fromRelationship: relationship.name)
            }
            for new in wanted where !current.contains(where: { $0 === new }) {
                try object.addObject(new, toRelationship: relationship.name)
            }
        case .relationship(let relationship):
            guard let id = value as? ObjectID else {
                throw unsupported(
                    key,
                    "\(object.entity.name).\(relationship.name) is a to-one relationship: encode the destination's ObjectID, not a nested record"
                )
            }
            try object.setObject(try encoder.context.object(with: id), forRelationship: relationship.name)
        }
    }

    private func unsupported(_ key: Key, _ reason: String) -> EncodingError {
        .invalidValue(key.stringValue, .init(codingPath: codingPath + [key], debugDescription: reason))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
        NestedKey
    > {
        KeyedEncodingContainer(
            FailingKeyedEncodingContainer<NestedKey>(
                codingPath: codingPath + [key], reason: "nested records are not written; encode the destination's ObjectID"))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        FailingEncodingContainer(codingPath: codingPath + [key], reason: "encode a to-many relationship as an array of ObjectID")
    }

    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}
