import Crypto
import Foundation

/// Version hashes exactly as Core Data computes them, so what seedbuild prints and stamps equals
/// the app's [entityVersionHashesByName](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/entityversionhashesbyname).
///
/// Every hash is SHA-256; integers are little-endian, strings UTF-8 without a terminator, and a
/// part marked "if any" is left out when absent or empty (`docs/model-json.md`):
///
///     property      P = SHA256(name | u16(optional | transient << 1 | readOnly << 2) | versionHashModifier if any)
///     attribute     A = SHA256(P | u32(NSAttributeType number) | 01 if external storage | 01 if preserved after deletion)
///     derived       D = SHA256(derivation in NSExpression format | filter predicate if any)
///     relationship  R = SHA256(P | destination | inverse if any and not itself | u32(maxCount) | u32(minCount) | 01 00 if ordered)
///     entity        E = SHA256(name | u8(abstract) | parent's E if any
///                          | the 32-byte hashes of every non-transient attribute and relationship,
///                            inherited ones included, in name order
///                          | versionHashModifier if any
///                          | each uniqueness constraint's names joined with ".", the constraints sorted)
///
/// Class names, user info, defaults, validation rules, delete rules, indexes, renaming identifiers
/// and fetched properties are not hashed: they do not change what a store holds.
extension Model {
    /// The version of the hash encoding stamped beside the hashes: 2 is Core Data's algorithm
    /// (1 was seedbuild's own, whose stores are re-hashed from the model embedded in them).
    public static let hashEncodingVersion = 2

    /// The version hash of one entity, as Core Data's `NSEntityDescription.versionHash`.
    public func versionHash(of entity: Entity) -> Data {
        var visiting: Set<String> = []
        return versionHash(of: entity, visiting: &visiting)
    }

    private func versionHash(of entity: Entity, visiting: inout Set<String>) -> Data {
        visiting.insert(entity.name)
        var bytes = HashBytes()
        bytes.append(entity.name)
        bytes.append(UInt8(entity.isAbstract ? 1 : 0))
        if let parent = superentity(of: entity), !visiting.contains(parent.name) {
            bytes.append(versionHash(of: parent, visiting: &visiting))
        }
        let attributes = allAttributes(of: entity).filter { !$0.isTransient }.map { ($0.name, Self.versionHash(of: $0)) }
        let relationships = allRelationships(of: entity).filter { !$0.isTransient }
            .map { ($0.name, Self.versionHash(of: $0, in: entity)) }
        for (_, hash) in (attributes + relationships).sorted(by: { Self.precedes($0.0, $1.0) }) {
            bytes.append(hash)
        }
        bytes.append(entity.versionHashModifier)
        let constraints = entity.uniquenessConstraints.filter { !$0.isEmpty }.map { $0.joined(separator: ".") }
        for constraint in constraints.sorted(by: Self.precedes) { bytes.append(constraint) }
        return bytes.sha256
    }

    /// The hash of one attribute (Core Data's `NSPropertyDescription.versionHash`).
    public static func versionHash(of attribute: Attribute) -> Data {
        if let derivation = attribute.derivation {
            var bytes = HashBytes()
            bytes.append(derivation.expressionFormat)
            bytes.append(derivation.filterPredicate)
            return bytes.sha256
        }
        var bytes = HashBytes()
        bytes.append(
            propertyHash(
                name: attribute.name, optional: attribute.isOptional, transient: attribute.isTransient,
                readOnly: attribute.isReadOnly, modifier: attribute.versionHashModifier))
        bytes.append(attribute.type.coreDataCode)
        if attribute.allowsExternalBinaryDataStorage { bytes.append(UInt8(1)) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(UInt8(1)) }
        return bytes.sha256
    }

    /// The hash of one relationship of `entity`.
    public static func versionHash(of relationship: Relationship, in entity: Entity) -> Data {
        var bytes = HashBytes()
        bytes.append(
            propertyHash(
                name: relationship.name, optional: relationship.isOptional, transient: relationship.isTransient,
                readOnly: relationship.isReadOnly, modifier: relationship.versionHashModifier))
        bytes.append(relationship.destination)
        let isOwnInverse = relationship.inverse == relationship.name && relationship.destination == entity.name
        if !isOwnInverse { bytes.append(relationship.inverse) }
        // Core Data hashes the counts' 32 bits as they are: a compiled model's -1 ("no maximum") is FF FF FF FF.
        bytes.append(UInt32(truncatingIfNeeded: relationship.maxCount))
        bytes.append(UInt32(truncatingIfNeeded: relationship.minCount))
        if relationship.isOrdered { bytes.append(Data([1, 0])) }
        return bytes.sha256
    }

    private static func propertyHash(name: String, optional: Bool, transient: Bool, readOnly: Bool, modifier: String?) -> Data {
        var bytes = HashBytes()
        bytes.append(name)
        bytes.append(UInt16((optional ? 1 : 0) | (transient ? 2 : 0) | (readOnly ? 4 : 0)))
        bytes.append(modifier)
        return bytes.sha256
    }

    /// Entity name → version hash for every entity of the model: what Core Data compares with a
    /// store's `NSStoreModelVersionHashes`, whatever configuration the store is added with.
    public var entityVersionHashes: [String: Data] {
        var hashes: [String: Data] = [:]
        for entity in entities { hashes[entity.name] = versionHash(of: entity) }
        return hashes
    }

    /// Entity name → version hash for the entities of one configuration (`Default`: every entity).
    public func versionHashes(configuration name: String = Configuration.defaultName) throws(ModelError) -> [String: Data] {
        guard let configuration = configuration(named: name) else {
            throw .invalid(
                "no configuration named \"\(name)\"; the model has \(configurationNames.joined(separator: ", "))",
                source: source)
        }
        let all = entityVersionHashes
        return all.filter { configuration.entities.contains($0.key) }
    }

    /// The model's version checksum (Core Data's `versionChecksum` and `NSStoreModelVersionChecksumKey`).
    public var versionChecksum: String { Self.versionChecksum(of: entityVersionHashes) }

    /// The model's hashes digest (`NSStoreModelVersionHashesDigest`).
    public var versionHashesDigest: String { Self.versionHashesDigest(of: entityVersionHashes) }

    /// base64(SHA-256 of the entity hashes concatenated in entity-name order).
    public static func versionChecksum(of hashes: [String: Data]) -> String {
        var bytes = HashBytes()
        for name in hashes.keys.sorted(by: precedes) { bytes.append(hashes[name]!) }
        return bytes.sha256.base64EncodedString()
    }

    /// base64(SHA-512 of each entity's name followed by its hash, in entity-name order).
    public static func versionHashesDigest(of hashes: [String: Data]) -> String {
        var bytes = HashBytes()
        for name in hashes.keys.sorted(by: precedes) {
            bytes.append(name)
            bytes.append(hashes[name]!)
        }
        return Data(SHA512.hash(data: bytes.bytes)).base64EncodedString()
    }

    /// Names in the order Core Data sorts them: by UTF-8 bytes.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}

extension Attribute.Derivation {
    /// The expression as Core Data prints it: Xcode's `pages.@count` is `count:(pages)`,
    /// `items.@sum.price` is `sum:(items.price)`; anything else as written.
    public var expressionFormat: String {
        let text = expression.trimmingCharacters(in: .whitespaces)
        let functions = ["@count": "count", "@sum": "sum", "@avg": "average", "@min": "min", "@max": "max"]
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let index = parts.firstIndex(where: { functions[$0] != nil }), index > 0 else { return text }
        let argument = (parts[..<index] + parts[(index + 1)...]).joined(separator: ".")
        return "\(functions[parts[index]]!):(\(argument))"
    }
}

/// The byte string a hash is taken over.
struct HashBytes {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ string: String?) {
        if let string { bytes.append(contentsOf: string.utf8) }
    }

    mutating func append(_ data: Data) { bytes.append(contentsOf: data) }

    mutating func append(_ value: UInt8) { bytes.append(value) }

    mutating func append(_ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    var sha256: Data { Data(SHA256.hash(data: bytes)) }
}
