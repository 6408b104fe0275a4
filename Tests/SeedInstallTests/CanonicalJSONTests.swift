import SeedInstall
import Testing

/// The canonical JSON a manifest's signature covers (docs/artifacts.md): members sorted by the UTF-8
/// bytes of their keys, no white space, strings escaped as the format says.
@Suite("Canonical JSON")
struct CanonicalJSONTests {
    @Test func canonicalFormIsExact() {
        let value: JSONValue = .object([
            "b": .array([1, true, .null]), "a": .string("x\"y\\z/é\u{1}\t"), "A": .object(["z": 0, "y": -5]),
        ])
        #expect(String(decoding: value.canonicalBytes, as: UTF8.self) == #"{"A":{"y":-5,"z":0},"a":"x\"y\\z/é\u0001\t","b":[1,true,null]}"#)
    }
}
