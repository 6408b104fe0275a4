import Foundation
import SeedModel

/// Decodes a `Decodable` record from one managed object, or from a fetched row no object holds:
/// keys are property names, attributes decode to Swift values, relationships to object IDs or nested records.
///
/// The key `objectID` decodes the object's own ``ObjectID`` when the entity has no property of that name.
struct RecordDecoder: Decoder {
    let source: RecordSource
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(source: RecordSource, codingPath: [any CodingKey]) {
        self.source = source
        self.codingPath = codingPath
    }

    init(object: ManagedObject, codingPath: [any CodingKey]) {
        self.init(source: .object(object), codingPath: codingPath)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ObjectDecodingContainer<Key>(source: source, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            .init(
                codingPath: codingPath,
                debugDescription:
                    "\(source.sharedEntity.name) is one object; decode it as a keyed record, or a to-many relationship as an array"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            StoreValue.self,
            .init(
                codingPath: codingPath,
                debugDescription: "\(source.sharedEntity.name) is an object; decode it as a keyed record or as an ObjectID"))
    }
}

/// What a record's key names in an object.
enum RecordProperty {
    /// An attribute: its name and type only, as this is made for every key of every record, and a
    /// whole `Attribute` would be copied (and its fields retained) each time.
    case attribute(name: String, type: AttributeType)
    case relationship(Relationship)
    /// The object's own ID (the key `objectID`, when the entity has no property of that name).
    case objectID

    /// The property `name` of `entity`, or an error naming the entity and its properties.
    /// `record` (what is being decoded or encoded, for the message) is only built for an error.
    init(_ name: String, of shared: SharedEntity, record: @autoclosure () -> String) throws {
        if let type = shared.attributeTypes[name] {
            self = .attribute(name: name, type: type)
            return
        }
        let entity = shared.entity
        if let relationship = entity.relationship(named: name) {
            self = .relationship(relationship)
        } else if name == recordObjectIDKey {
            self = .objectID
        } else {
            let properties = (entity.attributes.map(\.name) + entity.relationships.map(\.name)).sorted()
            throw ContextError(
                .unknownName,
                "\(record()): \(entity.name) has no property \"\(name)\"; its properties are \(properties.joined(separator: ", ").ifEmpty("none")). Rename the record's property, or leave it out with CodingKeys"
            )
        }
    }
}

struct ObjectDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let source: RecordSource
    let codingPath: [any CodingKey]
    /// The object's entity, reached through the source rather than held: the container is copied for every key.
    private var shared: SharedEntity { source.sharedEntity }
    private var entity: Entity { shared.entity }

    init(source: RecordSource, codingPath: [any CodingKey]) {
        self.source = source
        self.codingPath = codingPath
    }

    /// Every key is "present", so an optional property with a name the entity lacks is an error too,
    /// not a silent nil; ``decodeNil(forKey:)`` says whether the value is there.
    func contains(_ key: Key) -> Bool { true }

    var allKeys: [Key] {
        (entity.attributes.map(\.name) + entity.relationships.map(\.name)).compactMap { Key(stringValue: $0) }
    }

    private func property(_ key: Key) throws -> RecordProperty {
        try RecordProperty(key.stringValue, of: shared, record: "decoding \(pathText(key))")
    }

    /// The decoder of the attribute `key` names, or nil when it names none: one look-up of the name.
    private func attributeIfAny(_ key: Key) -> AttributeValueDecoder? {
        let name = key.stringValue
        guard let (value, type) = source.attribute(name) else { return nil }
        return AttributeValueDecoder(value: value, name: name, type: type, entity: shared.name, parentPath: codingPath, key: key)
    }

    /// The value of the attribute `key` names, nil when it names none: text and numbers as stored are
    /// returned from it without making an ``AttributeValueDecoder`` (conversions and errors are its).
    private func storedValue(_ key: Key) -> StoreValue? {
        source.attribute(key.stringValue)?.value
    }

    /// The decoder of the attribute `key` names; an error for another kind of property or an unknown name.
    private func attribute(_ key: Key) throws -> AttributeValueDecoder {
        if let decoder = attributeIfAny(key) { return decoder }
        _ = try property(key)
        throw mismatch(StoreValue.self, key, "it is a relationship or the object's ID, not an attribute value")
    }

    private func pathText(_ key: Key) -> String {
        (codingPath + [key]).map(\.stringValue).joined(separator: ".")
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        switch try property(key) {
        case .attribute(let name, _): return source.attribute(name)?.value.isNull ?? true
        case .relationship(let relationship):
            return relationship.isToMany ? false : try source.object().object(forRelationship: relationship.name) == nil
        case .objectID: return false
        }
    }

    // The standard types are attribute values, decoded directly.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try attribute(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        if case .text(let text)? = storedValue(key) { return text }
        return try attribute(key).decode(type)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        if case .real(let number)? = storedValue(key) { return number }
        return try attribute(key).decode(type)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try attribute(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try attribute(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try attribute(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try attribute(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try attribute(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try attribute(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try attribute(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try attribute(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try attribute(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try attribute(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try attribute(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeValue(type, forKey: key) }

    // Optional attributes in one look-up of the property, instead of decodeNil's and decode's two.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try attribute(key).decodeIfPresent(type) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        switch storedValue(key) {
        case .text(let text)?: return text
        case .null?: return nil
        default: return try attribute(key).decodeIfPresent(type)
        }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        switch storedValue(key) {
        case .real(let number)?: return number
        case .null?: return nil
        default: return try attribute(key).decodeIfPresent(type)
        }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try attribute(key).decodeIfPresent(type) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try attribute(key).decodeIfPresent(type) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        // An optional date, the commonest attribute type past the standard ones, without making a decoder.
        if type == Date.self {
            switch storedValue(key) {
            // T is Date (checked above): a bit cast, where `as? T` made a dynamic cast for every record.
            case .real(let seconds)?: return unsafeBitCast(Date(timeIntervalSince1970: seconds), to: T.self)
            case .null?: return nil
            default: break
            }
        }
        if let decoder = attributeIfAny(key) { return try decoder.decodeIfPresent(type) }
        return try decodeNil(forKey: key) ? nil : try decodeValue(type, forKey: key)
    }

    private func decodeValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        func path() -> [any CodingKey] { codingPath + [key] }
        switch try property(key) {
        case .objectID:
            guard let id = source.objectID as? T else { throw mismatch(type, key, "it is the object's ObjectID") }
            return id
        case .attribute:
            return try attribute(key).decode(type)
        case .relationship(let relationship) where relationship.isToMany:
            let destinations = try source.object().objects(forRelationship: relationship.name)
            return try T(from: RelationshipDecoder(objects: destinations, codingPath: path()))
        case .relationship(let relationship):
            guard let destination = try source.object().object(forRelationship: relationship.name) else {
                throw DecodingError.valueNotFound(
                    type,
                    .init(
                        codingPath: path(),
                        debugDescription: "\(source.objectID) has no \(relationship.name); make the record's property optional"))
            }
            if type == ObjectID.self { return destination.objectID as! T }
            return try T(from: RecordDecoder(object: destination, codingPath: path()))
        }
    }

    private func mismatch<T>(_ type: T.Type, _ key: Key, _ reason: String) -> DecodingError {
        .typeMismatch(
            type,
            .init(
                codingPath: codingPath + [key],
                debugDescription: "\(shared.name).\(key.stringValue) cannot be decoded as \(type): \(reason)"))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        guard case .relationship(let relationship) = try property(key), !relationship.isToMany,
            let destination = try source.object().object(forRelationship: relationship.name)
        else { throw mismatch([String: Any].self, key, "only a set to-one relationship is a nested record") }
        return try RecordDecoder(object: destination, codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        guard case .relationship(let relationship) = try property(key), relationship.isToMany else {
            throw mismatch([Any].self, key, "only a to-many relationship is a list")
        }
        return try RelationshipDecoder(
            objects: try source.object().objects(forRelationship: relationship.name), codingPath: codingPath + [key]
        ).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { RecordDecoder(source: source, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RecordDecoder(source: source, codingPath: codingPath + [key]) }
}
