import Crypto
import Foundation
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
        // The byte string documented on Model.versionHash(of:), written out by hand.
        var bytes: [UInt8] = []
        func field(_ s: String) { bytes += withUnsafeBytes(of: UInt32(s.utf8.count).bigEndian, Array.init) + Array(s.utf8) }
        func flag(_ b: Bool) { bytes.append(b ? 1 : 0) }
        field("seedbuild.entity.v1"); field("Tag"); flag(false); field(""); field("")
        field("A"); field("label"); flag(false); flag(false); flag(false); field(""); field("String")
        let expected = Data(SHA256.hash(data: bytes)).hexString

        let model = Model(name: "M", entities: [Entity(name: "Tag", attributes: [Attribute(name: "label", type: .string, isOptional: false)])])
        #expect(try model.versionHashes()["Tag"]?.hexString == expected)
    }

    @Test func goldenHashes() throws {
        #expect(try hashes(base) == [
            "County": "ebeab75f62af2e3e6a67cfd111a06e7cdc69c6f2cf644ba05e06d6e19d0b70d2",
            "Postcode": "586e075e6ee85c6e22d71d5a55f33a66358efb28faedce6a49eca7b16e1a327e",
        ])
    }

    @Test func unchangedByWhatDoesNotShapeTheStore() throws {
        let original = try hashes(base)
        let cosmetic = base
            .replacingOccurrences(of: #"representedClassName="Postcode""#, with: #"representedClassName="PostcodeMO""#)
            .replacingOccurrences(of: #"defaultValueString="0.0""#, with: #"defaultValueString="51.5" minValueString="-90""#)
            .replacingOccurrences(of: #"<attribute name="code" attributeType="String"/>"#, with: #"<attribute name="code" attributeType="String"><userInfo><entry key="a" value="b"/></userInfo></attribute>"#)
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
        let extras = base.replacingOccurrences(of: #"<attribute name="postcode" attributeType="String"/>"#, with: """
            <attribute name="postcode" attributeType="String"/>
            <fetchedProperty name="ratings" optional="YES"><fetchRequest name="f" entity="Rating" predicateString="postcode == $FETCH_SOURCE.postcode"/></fetchedProperty>
            <fetchIndex name="byPostcode"><fetchIndexElement property="postcode" type="Binary" order="ascending"/></fetchIndex>
            <uniquenessConstraints><uniquenessConstraint><constraint value="postcode"/></uniquenessConstraint></uniquenessConstraints>
            """)
        #expect(try hashes(extras) == original)
    }

    @Test(arguments: [
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="lat" optional="YES""#, "Postcode"),
        (#"attributeType="Double""#, #"attributeType="Float""#, "Postcode"),
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="latitude""#, "Postcode"),
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="latitude" optional="YES" transient="YES""#, "Postcode"),
        (#"<attribute name="latitude" optional="YES""#, #"<attribute name="latitude" optional="YES" versionHashModifier="2""#, "Postcode"),
        (#"<entity name="County" representedClassName="County""#, #"<entity name="County" versionHashModifier="x""#, "County"),
        (#"deletionRule="Cascade""#, #"deletionRule="Deny""#, "County"),
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
        #expect(try model.configurationHash("Seed") != model.configurationHash())
        #expect(throws: ModelError.self) { try model.versionHashes(configuration: "Missing") }
    }

    @Test func hexRoundTrip() {
        let data = Data([0, 1, 0xAB, 0xFF])
        #expect(data.hexString == "0001abff")
        #expect(Data(hexString: "0001ABff") == data)
        #expect(Data(hexString: "0g") == nil)
    }
}
