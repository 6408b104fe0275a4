import Crypto
import Foundation

/// Version hashes: a 32-byte SHA-256 per entity over exactly what decides its stored shape.
///
/// Encoding version 1 (``Model/hashEncodingVersion``). The hash is SHA-256 over this byte string:
///
///     field("seedbuild.entity.v1")
///     field(entity name)  flag(isAbstract)
///     field(parent entity's hash, 32 raw bytes, or empty)  field(versionHashModifier or empty)
///     for each attribute and relationship, together in ascending order of name (UTF-8 bytes):
///       field("A" for an attribute, "R" for a relationship)  field(name)
///       flag(isOptional)  flag(isTransient)  flag(isReadOnly)  field(versionHashModifier or empty)
///       unless transient — attribute:    field(type, as Xcode spells it: "Integer 16", "String", …)
///       unless transient — relationship: field(destination)  field(inverse or empty)
///                                        u32(minCount)  u32(maxCount)  field(delete rule, "Nullify", …)
///                                        flag(isOrdered)  flag(isToMany)
///
/// where `field(s)` is the byte count of `s` as a big-endian u32 followed by its UTF-8 bytes,
/// `flag(b)` one byte 1 or 0, and `u32(n)` four big-endian bytes.
/// Class names, `userInfo`, default values, validation rules (min/max), renaming identifiers,
/// indexes, uniqueness constraints and fetched properties take no part: they do not change which
/// rows and columns a store holds. Like Core Data's
/// [versionHash](https://developer.apple.com/documentation/coredata/nsentitydescription/versionhash),
/// a store is compatible with a configuration when the stored hashes equal the configuration's.
extension Model {
    /// The version of the canonical encoding above; stored beside the hashes in every seed store.
    public static let hashEncodingVersion = 1

    /// The version hash of one entity.
    public func versionHash(of entity: Entity) -> Data {
        var encoder = HashEncoder()
        encoder.field("seedbuild.entity.v1")
        encoder.field(entity.name)
        encoder.flag(entity.isAbstract)
        let parent = entity.parentEntity.flatMap { self.entity(named: $0) }.map { versionHash(of: $0) } ?? Data()
        encoder.field(parent)
        encoder.field(entity.versionHashModifier ?? "")
        let properties: [(name: String, encode: (inout HashEncoder) -> Void)] =
            entity.attributes.map { attribute in (attribute.name, { $0.attribute(attribute) }) }
            + entity.relationships.map { relationship in (relationship.name, { $0.relationship(relationship) }) }
        for property in properties.sorted(by: { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }) {
            property.encode(&encoder)
        }
        return Data(SHA256.hash(data: encoder.bytes))
    }

    /// Entity name → version hash for the entities of one configuration (`Default`: every entity).
    public func versionHashes(configuration name: String = Configuration.defaultName) throws(ModelError) -> [String: Data] {
        let model = try restricted(to: name)
        var hashes: [String: Data] = [:]
        for entity in model.entities { hashes[entity.name] = versionHash(of: entity) }
        return hashes
    }

    /// One hash for a whole configuration: SHA-256 over its entities' names and hashes in name order.
    public func configurationHash(_ name: String = Configuration.defaultName) throws(ModelError) -> Data {
        Self.combinedHash(try versionHashes(configuration: name))
    }

    /// SHA-256 over `field(name) field(hash)` for each entry in ascending name order.
    public static func combinedHash(_ hashes: [String: Data]) -> Data {
        var encoder = HashEncoder()
        for name in hashes.keys.sorted() {
            encoder.field(name)
            encoder.field(hashes[name]!)
        }
        return Data(SHA256.hash(data: encoder.bytes))
    }
}

extension Data {
    /// Lowercase hexadecimal, two characters a byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from lowercase or uppercase hexadecimal, or nil when the text is not hex.
    public init?(hexString: String) {
        let chars = Array(hexString.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = Self.nibble(chars[index]), let low = Self.nibble(chars[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Builds the byte string the version hash is taken over.
struct HashEncoder {
    private(set) var bytes: [UInt8] = []

    mutating func field(_ string: String) { field(Data(string.utf8)) }

    mutating func field(_ data: Data) {
        u32(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func property(kind: String, name: String, optional: Bool, transient: Bool, readOnly: Bool, modifier: String?) {
        field(kind)
        field(name)
        flag(optional)
        flag(transient)
        flag(readOnly)
        field(modifier ?? "")
    }

    mutating func attribute(_ attribute: Attribute) {
        property(
            kind: "A", name: attribute.name, optional: attribute.isOptional, transient: attribute.isTransient,
            readOnly: attribute.isReadOnly, modifier: attribute.versionHashModifier)
        if !attribute.isTransient { field(attribute.type.rawValue) }
    }

    mutating func relationship(_ relationship: Relationship) {
        property(
            kind: "R", name: relationship.name, optional: relationship.isOptional,
            transient: relationship.isTransient, readOnly: relationship.isReadOnly,
            modifier: relationship.versionHashModifier)
        guard !relationship.isTransient else { return }
        field(relationship.destination)
        field(relationship.inverse ?? "")
        u32(UInt32(clamping: relationship.minCount))
        u32(UInt32(clamping: relationship.maxCount))
        field(relationship.deleteRule.rawValue)
        flag(relationship.isOrdered)
        flag(relationship.isToMany)
    }
}
