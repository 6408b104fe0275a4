import Foundation
import SeedTestSupport
import Testing

@testable import SeedModel

@Suite("Merging models")
struct ModelMergeTests {
    @Test func unionOfEntitiesAndConfigurations() throws {
        let directory = TemporaryDirectory()
        let seed = try loadXML(
            """
            <entity name="Postcode"><attribute name="postcode" attributeType="String"/>
            <fetchedProperty name="ratings" optional="YES"><fetchRequest name="f" entity="Rating" predicateString="postcode == $FETCH_SOURCE.postcode"/></fetchedProperty></entity>
            <configuration name="Seed"><memberEntity name="Postcode"/></configuration>
            """, in: directory, name: "SeedModel")
        let user = try loadXML(
            """
            <entity name="Rating"><attribute name="postcode" attributeType="String"/></entity>
            <configuration name="User"><memberEntity name="Rating"/></configuration>
            """, in: directory, name: "UserModel")
        let merged = try Model.merged([seed, user])
        #expect(merged.entities.map(\.name) == ["Postcode", "Rating"])
        #expect(merged.configurations.map(\.name) == ["Seed", "User"])
        #expect(merged.entity(named: "Rating")?.origin == user.source)
        #expect(try merged.validated(requireFetchedPropertyTargets: true).isEmpty)
        #expect(try merged.versionHashes(configuration: "Seed") == seed.versionHashes(configuration: "Seed"))
    }

    @Test func duplicateEntityNamesBothFiles() throws {
        let directory = TemporaryDirectory()
        let first = try loadXML(#"<entity name="Rating"><attribute name="a" attributeType="String"/></entity>"#, in: directory, name: "One")
        let second = try loadXML(
            #"<entity name="Rating"><attribute name="b" attributeType="String"/></entity>"#, in: directory, name: "Two")
        let error = #expect(throws: ModelError.self) { try Model.merged([first, second]) }
        let text = try #require(error).description
        #expect(
            text.contains(
                "entity Rating: error: defined in both \(directory.path("One.xcdatamodel")) and \(directory.path("Two.xcdatamodel"))"))
    }
}
