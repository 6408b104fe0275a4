import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

@Suite("Input problems that stop a build")
struct IngestErrorTests {
    private func failure(postcodes: String, counties: String? = nil) -> IngestError? {
        let directory = TemporaryDirectory()
        if let counties {
            writeTestInputs(directory, postcodes: postcodes, counties: counties)
        } else {
            writeTestInputs(directory, postcodes: postcodes)
        }
        do {
            _ = try buildTestStore(directory)
            return nil
        } catch let error as IngestError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func malformedCSVStopsWithLineAndColumn() throws {
        let unterminated = failure(postcodes: "postcode,county_code\nCT1 1AA,KEN\n\"CT1 1AB,KEN\nCT1 1AC,KEN\n")
        #expect(unterminated?.kind == .badData)
        #expect(unterminated?.line == 3)
        #expect(unterminated?.column == 1)
        #expect(unterminated?.description.contains("postcodes.csv:3:1") == true)

        let afterQuote = failure(postcodes: "postcode,county_code\n\"CT1 1AA\"x,KEN\n")
        #expect(afterQuote?.line == 2 && afterQuote?.field == "postcode")

        let empty = failure(postcodes: "")
        #expect(empty?.kind == .badData)
        let headerOnly = failure(postcodes: "postcode,county_code\n")
        #expect(headerOnly?.kind == .badData)
        let duplicateHeader = failure(postcodes: "postcode,postcode\nCT1 1AA,CT1 1AA\n")
        #expect(duplicateHeader?.column == 2)
    }

    @Test func missingRequiredColumnNamesTheAttribute() throws {
        let error = failure(postcodes: "latitude,county_code\n51.0,KEN\n")
        #expect(error?.kind == .badData)
        #expect(error?.field == "postcode")
        #expect(error?.description.contains("no column for required attribute Postcode.postcode") == true)
    }

    @Test func unmatchedColumnsFailNamingTheNearestProperty() throws {
        let error = failure(postcodes: "postcode,county_code,lat,lon,colour\nCT1 1AA,KEN,51.2,1.1,red\n")
        #expect(error?.kind == .badData)
        #expect(error?.field == "lat" && error?.column == 3)
        let text = error?.description ?? ""
        #expect(text.contains("3 columns match no property of Postcode"), "\(text)")
        #expect(text.contains("lat: did you mean latitude?"), "\(text)")
        #expect(text.contains("lon: no property of Postcode is close"), "\(text)")
        #expect(text.contains("colour: did you mean countryCode?") == false)
        #expect(text.contains("--ignore-column lat"))
        let typo = failure(postcodes: "postcode,county_code,latitud\nCT1 1AA,KEN,51.2\n")
        #expect(typo?.description.contains("latitud: did you mean latitude?") == true)
    }

    @Test func headerNamesEqualUpToCaseAreAnError() throws {
        let error = failure(postcodes: "postcode,county_code,POSTCODE\nCT1 1AA,KEN,CT1 1AB\n")
        #expect(error?.kind == .badData && error?.column == 3)
        #expect(
            error?.description.contains("columns 1 \"postcode\" and 3 \"POSTCODE\" both name Postcode.postcode") == true,
            "\(String(describing: error))")
        let separators = failure(postcodes: "postcode,county_code,country_code,Country-Code\nCT1 1AA,KEN,E,F\n")
        #expect(separators?.description.contains("columns 3 \"country_code\" and 4 \"Country-Code\"") == true)
    }

    @Test func columnsSkippedOnPurpose() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory, postcodes: "postcode,county_code,colour,weight\nCT1 1AA,KEN,red,3\nCT1 1AB,KEN,blue,4\n")
        let mapping = directory.write("mapping.json", #"{"Postcode": {"colour": null}}"#)
        let built = try buildTestStore(directory) {
            $0.mapping = mapping
            $0.ignoredColumns = ["WEIGHT"]
        }
        #expect(built.rowCounts["Postcode"] == 2)
        #expect(built.warnings.count == 1 && built.warnings[0].contains("skipped \"colour\", \"weight\" as told"))
        let partly = #expect(throws: IngestError.self) { try buildTestStore(directory) { $0.mapping = mapping } }
        #expect(partly?.field == "weight")
        let bad = directory.write("bad.json", #"{"Postcode": {"colour": 3}}"#)
        #expect((#expect(throws: IngestError.self) { try buildTestStore(directory) { $0.mapping = bad } })?.kind == .badProjectFile)
    }

    @Test func headersMatchIgnoringCaseAndSeparators() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory, postcodes: "Post-Code,COUNTY CODE,Country_Code\nCT1 1AA,KEN,E1\n")
        let built = try buildTestStore(directory)
        #expect(built.rowCounts["Postcode"] == 1)
        let country = try query(built.storePath) { db in try String.fetchOne(db, sql: "SELECT countryCode FROM Postcode") }
        #expect(country == "E1")
    }

    @Test func mappingFileRenamesColumns() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory, postcodes: "pcds,oscty\nCT1 1AA,KEN\n")
        let mapping = directory.write("mapping.json", #"{"Postcode": {"pcds": "postcode", "oscty": "county"}}"#)
        let built = try buildTestStore(directory) { $0.mapping = mapping }
        #expect(built.rowCounts["Postcode"] == 1)
        #expect(built.warnings.isEmpty)
    }

    @Test func siblingSourcesAndMissingOnes() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        try FileManager.default.removeItem(atPath: directory.path("in/counties.csv"))
        let error = #expect(throws: IngestError.self) { try buildTestStore(directory) }
        #expect(error?.kind == .missingInput)
        #expect(error?.description.contains("no CSV for entity County; tried") == true)
        #expect(error?.description.contains("county.csv") == true && error?.description.contains("counties.csv") == true)

        directory.write("elsewhere/regions.csv", "code,name\nKEN,Kent\nEDI,Edinburgh\n")
        let built = try buildTestStore(directory) { $0.sources["County"] = directory.path("elsewhere/regions.csv") }
        #expect(built.rowCounts["County"] == 2)
    }
}
