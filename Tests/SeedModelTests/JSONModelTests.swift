import Foundation
import SeedTestSupport
import Testing

@testable import SeedModel

@Suite("The JSON form of a model")
struct JSONModelTests {
    @Test func writtenModelReadsBackEqual() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(shopXML, in: directory, name: "Shop")
        let path = directory.path("Shop.json")
        try model.canonicalJSON().write(to: URL(fileURLWithPath: path))
        let reread = try ModelLoader.load(path)
        #expect(reread == model)
        #expect(reread.canonicalJSON() == model.canonicalJSON())
    }

    @Test func canonicalBytesIgnoreElementOrder() throws {
        let directory = TemporaryDirectory()
        let forward = try loadXML(
            """
            <entity name="B"><attribute name="y" attributeType="String"/><attribute name="x" optional="YES" attributeType="Double"/></entity>
            <entity name="A"><attribute name="z" attributeType="String"/></entity>
            """, in: directory, name: "M1")
        let reversed = try loadXML(
            """
            <entity name="A"><attribute name="z" attributeType="String"/></entity>
            <entity name="B"><attribute name="x" optional="YES" attributeType="Double"/><attribute name="y" attributeType="String"/></entity>
            """, in: directory, name: "M1")
        #expect(forward.canonicalJSON() == reversed.canonicalJSON())
    }

    @Test func documentedFormLeavesDefaultsOut() throws {
        let model = Model(
            name: "Tiny", versionIdentifiers: ["3"],
            entities: [Entity(name: "A", attributes: [Attribute(name: "x", type: .integer16, isOptional: false, defaultValue: "1")])])
        let text = String(decoding: model.canonicalJSON(), as: UTF8.self)
        #expect(
            text == """
                {
                  "entities" : [
                    {
                      "attributes" : [
                        {
                          "default" : "1",
                          "name" : "x",
                          "optional" : false,
                          "type" : "Integer 16"
                        }
                      ],
                      "name" : "A"
                    }
                  ],
                  "name" : "Tiny",
                  "versionIdentifiers" : [
                    "3"
                  ]
                }

                """)
    }

    @Test func configurationRestrictedForm() throws {
        let directory = TemporaryDirectory()
        var model = try loadXML(shopXML, in: directory, name: "Shop")
        model.entities.append(Entity(name: "Loose"))
        let restricted = try model.restricted(to: "Catalogue")
        #expect(restricted.entities.map(\.name) == ["Product", "Shelf"])
        #expect(throws: ModelError.self) { try model.restricted(to: "Nope") }
    }

    @Test func problemsNameEntityAndProperty() throws {
        let directory = TemporaryDirectory()
        func error(_ json: String) -> String {
            let path = directory.write("m.json", json)
            do {
                _ = try ModelLoader.load(path)
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(
            error(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "Text"}]}]}"#)
                .contains("A.x: error: unknown attribute type \"Text\""))
        #expect(
            error(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "String", "optinal": true}]}]}"#)
                .contains("A.x: error: unknown key \"optinal\""))
        #expect(
            error(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "String", "optional": "yes"}]}]}"#)
                .contains("\"optional\" must be true or false"))
        #expect(
            error(#"{"entities": [{"name": "A", "relationships": [{"name": "r", "destination": "A", "deleteRule": "Explode"}]}]}"#)
                .contains("A.r: error: unknown delete rule \"Explode\""))
        #expect(error(#"{"entities": [{"attributes": []}]}"#).contains("missing \"name\""))
        #expect(error("{not json").contains("not valid JSON"))
        #expect(error(#"{"name": "M"}"#).contains("missing \"entities\""))
    }
}
