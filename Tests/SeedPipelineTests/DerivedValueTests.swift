import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

@Suite("Derived attributes computed at build time")
struct DerivedValueTests {
    private let directory = TemporaryDirectory()

    /// The test model with derived attributes added to County and Postcode.
    private func writeModel(countyExtras: String, postcodeExtras: String = "") {
        writeTestInputs(directory)
        let json =
            testModelJSON
            .replacingOccurrences(
                of: #"{"name": "population", "type": "Integer 32"}"#, with: #"{"name": "population", "type": "Integer 32"}"# + countyExtras
            )
            .replacingOccurrences(
                of: #"{"name": "countryCode", "type": "String"}"#, with: #"{"name": "countryCode", "type": "String"}"# + postcodeExtras)
        directory.write("model.json", json)
    }

    @Test func supportedDerivationsAreComputed() throws {
        writeModel(
            countyExtras: """
                , {"name": "postcodeCount", "type": "Integer 64", "optional": false, "derivation": "postcodes.@count"},
                {"name": "key", "type": "String", "derivation": "lowercase:(code)"},
                {"name": "shout", "type": "String", "derivation": "uppercase:(name)"},
                {"name": "folded", "type": "String", "derivation": "canonical:(name)"},
                {"name": "builtAt", "type": "Date", "derivation": "now()"}
                """,
            postcodeExtras: #", {"name": "countyName", "type": "String", "derivation": "county.name"}"#)
        directory.write("in/counties.csv", "code,name,population\r\nKEN,Kent,1500000\r\nEDI,\"Édinburgh, City of\",\r\n")
        let built = try buildTestStore(directory)
        let counties = try query(built.storePath) { db in
            try Row.fetchAll(db, sql: "SELECT code, postcodeCount, key, shout, folded, builtAt FROM County ORDER BY code")
        }
        #expect(counties.map { $0["postcodeCount"] as Int64 } == [1, 2])
        #expect(counties.map { $0["key"] as String } == ["edi", "ken"])
        #expect(counties.map { $0["shout"] as String } == ["ÉDINBURGH, CITY OF", "KENT"])
        #expect(counties.map { $0["folded"] as String } == ["edinburgh, city of", "kent"])
        #expect(counties.allSatisfy { $0["builtAt"] as Double == 1_700_000_000 }, "now() is the build time, so builds stay reproducible")
        let names = try query(built.storePath) { db in try String?.fetchAll(db, sql: "SELECT countyName FROM Postcode ORDER BY postcode") }
        #expect(names == ["Kent", "Kent", "Édinburgh, City of"])

        // The content digest covers the computed values: it equals a fresh digest of the finished store.
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: built.storePath))
        let again = try buildTestStore(directory) { $0.outputDirectory = directory.path("again") }
        #expect(metadata.contentDigest == (try StoreMetadata.read(at: URL(fileURLWithPath: again.storePath))).contentDigest)
        #expect(metadata.contentDigest == (try storedDigest(built.storePath)))
    }

    @Test func unsupportedDerivationIsRefusedNamingAttributeAndExpression() throws {
        writeModel(
            countyExtras:
                #", {"name": "total", "type": "Double", "derivation": "postcodes.@sum.latitude"}, {"name": "odd", "type": "String", "derivation": "county.code"}"#
        )
        let error = #expect(throws: ModelError.self) { try buildTestStore(directory) }
        let text = error?.description ?? ""
        #expect(text.contains("County.total: error: the derivation \"postcodes.@sum.latitude\" cannot be computed"))
        #expect(text.contains("County.odd: error: the derivation \"county.code\" cannot be computed"))
        let written = (try? FileManager.default.contentsOfDirectory(atPath: directory.path("out"))) ?? []
        #expect(!written.contains { $0.hasSuffix(".sqlite") }, "refused before any store is written")
    }
}
