import Foundation
import SeedModel
import SeedTestSupport
import Testing

/// Malformed model files are refused with a message before FoundationXML can crash on them.
@Suite("Model XML checked before parsing")
struct ModelXMLCheckTests {
    private let directory = TemporaryDirectory()

    private func load(_ bytes: [UInt8]) -> ModelError? {
        let folder = directory.path("M.xcdatamodel")
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try! Data(bytes).write(to: URL(fileURLWithPath: folder + "/contents"))
        do {
            _ = try ModelLoader.load(folder)
            return nil
        } catch {
            return error
        }
    }

    @Test func theCrashReproducersAreRefused() {
        // Each of these used to kill the process inside FoundationXML (SIGILL, SIGSEGV).
        let invalidUTF8 = load(Array("<model><e".utf8) + [0xFF] + Array("/></model>".utf8))
        #expect(invalidUTF8.map(messages)?.first?.contains("line 1: the file is not valid UTF-8") == true)
        let instruction = load(Array("<model><?foo?></model>".utf8))
        #expect(instruction.map(messages)?.first?.contains("not well-formed XML: a processing instruction") == true)
    }

    @Test(arguments: [
        ("<model>\n<entity name=\"A\">\n</model>", "line 3: not well-formed XML: an end tag that matches no open element"),
        ("<!DOCTYPE model [<!ENTITY x \"y\">]><model/>", "a DOCTYPE or declaration"),
        ("<model a=\"1\" a=\"2\"/>", "an attribute given twice"),
        ("<model>&bogus;</model>", "unknown or invalid reference &bogus;"),
        ("<model>&#0;</model>", "unknown or invalid reference &#0;"),
        ("<model>\u{1}</model>", "control character 1"),
        ("<model/><model/>", "content after the root element"),
        ("<model>", "the document ends inside an element"),
        ("<model name=\"x></model>", "'<' in an attribute value"),
        ("<model name=\"x", "an attribute value never ends"),
        ("", "no root element"),
    ])
    func malformedDocumentsNameTheProblem(text: String, expected: String) {
        let error = load(Array(text.utf8))
        #expect(error.map(messages)?.first?.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func whatXcodeWritesStillLoads() throws {
        let body = """
            <!-- a comment -->
            <entity name="Café" representedClassName="Café" syncable="YES">
                <attribute name="note" optional="YES" attributeType="String" defaultValueString="a &amp; b &#x263A; &quot;q&quot;"/>
                <userInfo><entry key="k" value='single &apos;quoted&apos;'/></userInfo>
            </entity>
            """
        directory.write("Ok.xcdatamodel/contents", "\u{FEFF}" + modelXML(body))
        let model = try ModelLoader.load(directory.path("Ok.xcdatamodel"))
        #expect(model.entities.map(\.name) == ["Café"])
        #expect(model.entities[0].attributes[0].defaultValue == "a & b ☺ \"q\"")
    }
}
