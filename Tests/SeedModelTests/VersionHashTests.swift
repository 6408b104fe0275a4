import Crypto
import Foundation
import SeedTestSupport
import Testing

@testable import SeedModel

@Suite("Entity version hashes")
struct VersionHashTests {
    private let base = """
        <entity name="Postcode" representedClassName="Postcode" syncable="YES">
            <attribute name="postcode" attributeType="String"/>
            <attribute name="latitude" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            <relationship name="county" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="County" inverseName="postcodes" inverseEntity="County"/>
        </entity>
        <entity name="County" representedClassName="County" syncable="YES">
            <attribute name="code" attributeType="String"/>
            <relationship name="postcodes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Postcode" inverseName="county" inverseEntity="Postcode"/>
        </entity>
        """

    private func hashes(_ body: String) throws -> [String: String] {
        let directory = TemporaryDirectory()
        return try loadXML(body, in: directory).versionHashes().mapValues(\.hexString)
    }

    @Test func encodingMatchesItsDocumentation() throws {
        // The byte strings documented on Model.versionHash(of:) (FORMAT.md §1), written out by hand.
        func sha(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        let labelP = sha(Array("label".utf8) + le(UInt16(0)))
        let labelA = sha(labelP + le(UInt32(700)))
        let noteP = sha(Array("note".utf8) + le(UInt16(1)) + Array("v2".utf8))
        let noteA = sha(noteP + le(UInt32(1000)) + [1])
        let tagsP = sha(Array("tags".utf8) + le(UInt16(1)))
        let tagsR = sha(tagsP + Array("Tag".utf8) + Array("items".utf8) + le(UInt32(0)) + le(UInt32(0)) + [1, 0])
        let expected = sha(Array("Item".utf8) + [0] + labelA + noteA + tagsR + Array("label".utf8))

        let model = Model(
            name: "M",
            entities: [
                Entity(
                    name: "Item",
                    attributes: [
                        Attribute(name: "label", type: .string, isOptional: false),
                        Attribute(name: "note", type: .binary, versionHashModifier: "v2", allowsExternalBinaryDataStorage: true),
                        Attribute(name: "scratch", type: .undefined, isTransient: true),
                    ],
                    relationships: [Relationship(name: "tags", destination: "Tag", inverse: "items", isToMany: true, isOrdered: true)],
                    uniquenessConstraints: [["label"]]),
                Entity(name: "Tag", relationships: [Relationship(name: "items", destination: "Item", inverse: "tags", isToMany: true)]),
            ])
        #expect(model.entityVersionHashes["Item"] == Data(expected))
        let checksum = sha(Array(model.entityVersionHashes["Item"]!) + Array(model.entityVersionHashes["Tag"]!))
        #expect(model.versionChecksum == Data(checksum).base64EncodedString())
    }

    @Test func goldenHashes() throws {
        #expect(
            try hashes(base) == [
                "County": "ab64c707d6c59eef7131d546b31d1af95a1068feb8e5e4f280e77e432354431c",
                "Postcode": "ecaa20c1f73e59c89f2bfe9c4b63b0158bb0379dac6ccb2c6a326bd8eddb8bb5",
            ])
    }

    @Test func unchangedByWhatDoesNotShapeTheStore() throws {
        let original = try hashes(base)
        let cosmetic =
            base
            .replacingOccurrences(of: #"representedClassName="Postcode""#, with: #"representedClassName="PostcodeMO""#)
            .replacingOccurrences(of: #"defaultValueString="0.0""#, with: #"defaultValueString="51.5" minValueString="-90""#)
            .replacingOccurrences(
                of: #"<attribute name="code" attributeType="String"/>"#,
                with: #"<attribute name="code" attributeType="String"><userInfo><entry key="a" value="b"/></userInfo></attribute>"#)
        #expect(try hashes(cosmetic) == original)

        // Element order and layout.
        let reordered = """
            <entity name="County" representedClassName="County" syncable="YES">
                <relationship name="postcodes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Postcode" inverseName="county" inverseEntity="Postcode"/>
                <attribute name="code" attributeType="String"/>
            </entity>
            <entity name="Postcode" representedClassName="Postcode" syncable="YES">
                <relationship name="county" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="County" inverseName="postcodes" inverseEntity="County"/>
                <attribute name="latitude" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="postcode" attributeType="String"/>
            </entity>
            <elements><element name="County" positionX="0" positionY="0" width="128" height="60"/></elements>
            """
        #expect(try hashes(reordered) == original)

        // Indexes, constraints and fetched properties change no hash either.
        let extras = base.replacingOccurrences(
            of: #"<attribute name="postcode" attributeType="String"/>"#,
            with: """
                <attribute name="postcode" attributeType="String"/>
                <fetchedProperty name="ratings" optional="YES"><fetchRequest name="f" entity="Rating" predicateString="postcode == $FETCH_SOURCE.postcode"/></fetchedProperty>
                <fetchIndex name="byPostcode"><fetchIndexElement property="postcode" type="Binary" order="ascending"/></fetchIndex>
                """)
        #expect(try hashes(extras) == original)
        // Delete rules are not hashed either, whatever Apple's old versioning guide says.
        #expect(try hashes(base.replacingOccurrences(of: #"deletionRule="Cascade""#, with: #"deletionRule="Deny""#)) == original)
    }

    /// Core Data leaves transient properties out of an entity's hash, relationships as attributes.
    @Test func transientRelationshipsAreNotHashed() throws {
        let withTransient = base.replacingOccurrences(
            of: #"<attribute name="code" attributeType="String"/>"#,
            with: """
                <attribute name="code" attributeType="String"/>
                <relationship name="visited" optional="YES" toMany="YES" transient="YES" deletionRule="Nullify" destinationEntity="Postcode"/>
                """)
        #expect(withTransient != base)
        #expect(try hashes(withTransient) == hashes(base))
        let persistent = try hashes(withTransient.replacingOccurrences(of: #" transient="YES""#, with: ""))
        #expect(try persistent["County"] != hashes(base)["County"], "the same relationship saved is hashed")
    }

    @Test(arguments: [
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="lat" optional="YES""#, "Postcode"),
        (#"attributeType="Double""#, #"attributeType="Float""#, "Postcode"),
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="latitude""#, "Postcode"),
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="latitude" optional="YES" transient="YES""#, "Postcode"),
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="latitude" optional="YES" versionHashModifier="2""#, "Postcode"),
        (#"<entity name="County" representedClassName="County""#, #"<entity name="County" versionHashModifier="x""#, "County"),
        (
            #"<attribute name="code" attributeType="String"/>"#,
            #"<attribute name="code" attributeType="String"/><uniquenessConstraints><uniquenessConstraint><constraint value="code"/></uniquenessConstraint></uniquenessConstraints>"#,
            "County"
        ),
        (
            #"<attribute name="latitude" optional="YES""#,
            #"<attribute name="latitude" optional="YES" allowsExternalBinaryDataStorage="YES""#, "Postcode"
        ),
        (#"optional="YES" toMany="YES""#, #"optional="YES" toMany="YES" ordered="YES""#, "County"),
        (#"optional="YES" toMany="YES""#, #"optional="YES" toMany="YES" minCount="1""#, "County"),
    ])
    func changedByWhatShapesTheStore(from: String, to: String, entity: String) throws {
        let original = try hashes(base)
        let changed = try hashes(base.replacingOccurrences(of: from, with: to))
        #expect(changed[entity] != original[entity])
        let other = entity == "County" ? "Postcode" : "County"
        #expect(changed[other] == original[other])
    }

    @Test func configurationHashMaps() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(base + #"<configuration name="Seed"><memberEntity name="County"/></configuration>"#, in: directory)
        #expect(try model.versionHashes(configuration: "Seed").keys.sorted() == ["County"])
        #expect(try model.versionHashes().keys.sorted() == ["County", "Postcode"])
        // The checksum covers every entity, as Core Data's does, whatever the configuration.
        #expect(model.versionChecksum == Model.versionChecksum(of: try model.versionHashes()))
        #expect(throws: ModelError.self) { try model.versionHashes(configuration: "Missing") }
    }

    @Test func hexRoundTrip() {
        let data = Data([0, 1, 0xAB, 0xFF])
        #expect(data.hexString == "0001abff")
        #expect(Data(hexString: "0001ABff") == data)
        #expect(Data(hexString: "0g") == nil)
    }
}
