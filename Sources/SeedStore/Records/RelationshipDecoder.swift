/// Decodes a to-many relationship's destinations as an array of object IDs or nested records.
struct RelationshipDecoder: Decoder {
    let objects: [ManagedObject]
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(
            [String: Any].self,
            .init(codingPath: codingPath, debugDescription: "a to-many relationship decodes as an array (of ObjectID or records)"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Destinations(objects: objects, codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            StoreValue.self,
            .init(codingPath: codingPath, debugDescription: "a to-many relationship decodes as an array (of ObjectID or records)"))
    }

    struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    struct Destinations: UnkeyedDecodingContainer {
        let objects: [ManagedObject]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { objects.count }
        var isAtEnd: Bool { currentIndex >= objects.count }

        init(objects: [ManagedObject], codingPath: [any CodingKey]) {
            self.objects = objects
            self.codingPath = codingPath
        }

        private mutating func next() throws -> (ManagedObject, [any CodingKey]) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    ManagedObject.self, .init(codingPath: codingPath, debugDescription: "no more destinations"))
            }
            defer { currentIndex += 1 }
            return (objects[currentIndex], codingPath + [Index(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool { false }

        // A destination is an object: a standard type fails as it would from any record.
        mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
        mutating func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

        private mutating func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
            let (object, path) = try next()
            if type == ObjectID.self { return object.objectID as! T }
            return try T(from: RecordDecoder(object: object, codingPath: path))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (object, path) = try next()
            return try RecordDecoder(object: object, codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: codingPath, debugDescription: "a destination is one object, not a list"))
        }

        mutating func superDecoder() throws -> any Decoder {
            let (object, path) = try next()
            return RecordDecoder(object: object, codingPath: path)
        }
    }
}
