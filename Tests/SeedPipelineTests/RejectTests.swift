import Foundation
import GRDB
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

@Suite("Rejected rows")
struct RejectTests {
    private let directory = TemporaryDirectory()

    private func rejects(_ postcodes: String, counties: String? = nil, layout: StoreLayout = .coreData) throws -> (BuiltStore, [String]) {
        if let counties {
            writeTestInputs(directory, postcodes: postcodes, counties: counties)
        } else {
            writeTestInputs(directory, postcodes: postcodes)
        }
        let built = try buildTestStore(directory, maxRejects: 100) { $0.format = layout }
        let file = try String(contentsOfFile: try #require(built.rejectsPath), encoding: .utf8)
        return (built, file.split(separator: "\n").map(String.init))
    }

    @Test func badValuesAreRejectedWithFileLineColumnAndField() throws {
        let (built, lines) = try rejects(
            """
            postcode,county_code,latitude,active,introduced
            CT1 1AA,KEN,north,yes,2001-02-03
            CT1 1AB,KEN,51.1,maybe,2001-02-03
            CT1 1AD,KEN,51.1,yes,2001-02-30
            ,KEN,51.1,yes,
            CT1 1AE,KEN,51.1,yes,2001-02-03

            """)
        #expect(built.rejected == 4)
        #expect(built.rowCounts["Postcode"] == 1)
        let shown = built.shownRejects.map(\.description)
        #expect(
            shown[0].hasSuffix(
                "postcodes.csv:2:3 (field \"latitude\"): Postcode.latitude: " + shown[0].components(separatedBy: "Postcode.latitude: ")[1]))
        #expect(shown[0].contains("\"north\""))
        #expect(shown[1].contains("postcodes.csv:3:4 (field \"active\")"))
        #expect(shown[2].contains("postcodes.csv:4:5 (field \"introduced\")"))
        #expect(shown[3].contains("postcodes.csv:5:1 (field \"postcode\"): Postcode.postcode is required but the field is empty"))
        #expect(lines[0] == "file,line,column,field,reason,record")
        #expect(lines[1].contains(",2,3,latitude,"))
        #expect(lines[1].hasSuffix(",\"CT1 1AA,KEN,north,yes,2001-02-03\""))
    }

    @Test func unknownReferenceNamesBothFilesAndTheKey() throws {
        let (built, _) = try rejects("postcode,county_code\nCT1 1AA,KEN\nCT1 1AB,XXX\n")
        #expect(built.rejected == 1)
        let message = built.shownRejects[0].description
        #expect(message.contains("postcodes.csv:3:2 (field \"county_code\")"))
        #expect(message.contains("no County with code \"XXX\" in"))
        #expect(message.contains("counties.csv"))
    }

    /// SQLite holds two keys that differ in their bytes apart although Unicode calls them equal
    /// (`é` precomposed and `e` + combining acute): each reference goes to the row with its own
    /// bytes, and a third spelling matches neither.
    @Test(arguments: StoreLayout.allCases)
    func referencesMatchKeysByteForByte(_ layout: StoreLayout) throws {
        let (built, _) = try rejects(
            "postcode,county_code\nCT1 1AA,\u{E9}\nCT1 1AB,e\u{301}\nCT1 1AC,\u{E9}\nCT1 1AD,E\n",
            counties: "code,name\n\u{E9},precomposed\ne\u{301},decomposed\n", layout: layout)
        #expect(built.rejected == 1)
        #expect(built.shownRejects.first?.description.contains("postcodes.csv:5:2") == true)
        let names = try query(built.storePath) { db in
            try String.fetchAll(db, sql: "SELECT c.name FROM Postcode p JOIN County c ON c.Z_PK = p.county ORDER BY p.postcode")
        }
        #expect(names == ["precomposed", "decomposed", "precomposed"])
    }

    @Test func duplicateKeysInKeyOrderNameBothLines() throws {
        let (built, _) = try rejects("postcode,county_code\nCT1 1AA,KEN\nCT1 1AA,EDI\nCT1 1AB,KEN\n")
        #expect(built.rejected == 1)
        #expect(built.rowCounts["Postcode"] == 2)
        #expect(
            built.shownRejects[0].description.contains(
                "postcodes.csv:3:1 (field \"postcode\"): duplicate Postcode.postcode \"CT1 1AA\": line 2 has it already"))
        let county = try query(built.storePath) { db in
            try String.fetchOne(db, sql: "SELECT c.code FROM Postcode p JOIN County c ON c.Z_PK = p.county WHERE postcode = 'CT1 1AA'")
        }
        #expect(county == "KEN", "the first row wins")
    }

    /// In the plain layout the keyed table refuses the out-of-order duplicates as they come (a few
    /// keys out of order go straight in); in Core Data's the uniqueness check finds them after the load.
    @Test(arguments: StoreLayout.allCases)
    func duplicateKeysOutOfOrderNameBothLines(_ layout: StoreLayout) throws {
        let (built, _) = try rejects(
            "postcode,county_code\nCT1 1AB,KEN\nCT1 1AA,KEN\nCT1 1AC,EDI\nCT1 1AB,EDI\nCT1 1AA,EDI\n", layout: layout)
        #expect(built.rejected == 2)
        #expect(built.rowCounts["Postcode"] == 3)
        let messages = built.shownRejects.map(\.description).sorted()
        #expect(
            messages[0].contains("postcodes.csv:5:1 (field \"postcode\"): duplicate Postcode.postcode \"CT1 1AB\": line 2 has it already"))
        #expect(
            messages[1].contains("postcodes.csv:6:1 (field \"postcode\"): duplicate Postcode.postcode \"CT1 1AA\": line 3 has it already"))
        let rows = try query(built.storePath) { db in try Row.fetchAll(db, sql: "SELECT postcode, county FROM Postcode ORDER BY postcode") }
        #expect(rows.map { $0["postcode"] as String } == ["CT1 1AA", "CT1 1AB", "CT1 1AC"])
    }

    @Test func duplicateUniqueValuesInRowidTable() throws {
        let (built, _) = try rejects(
            "postcode,county_code\nCT1 1AA,KEN\n",
            counties: "code,name\nKEN,Kent\nEDI,Edinburgh\nKEN,Kent again\n")
        #expect(built.rejected == 1)
        #expect(built.rowCounts["County"] == 2)
        #expect(
            built.shownRejects[0].description.contains(
                "counties.csv:4:1 (field \"code\"): duplicate County.code \"KEN\": line 2 has it already"))
        let name = try query(built.storePath) { db in try String.fetchOne(db, sql: "SELECT name FROM County WHERE code = 'KEN'") }
        #expect(name == "Kent")
    }

    @Test func tooManyRejectsFailsAndKeepsTheRejectsFile() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory, postcodes: "postcode,county_code,latitude\nCT1 1AA,KEN,x\nCT1 1AB,KEN,y\nCT1 1AC,KEN,1\n")
        let error = #expect(throws: IngestError.self) { try buildTestStore(directory, maxRejects: 1) }
        #expect(error?.kind == .tooManyRejects)
        #expect(error?.description.contains("postcodes.rejects.csv: 2 rows rejected, more than --max-rejects 1") == true)
        #expect(error?.rejectedRows.count == 2)
        #expect(!FileManager.default.fileExists(atPath: directory.path("out/postcodes.sqlite")))
        #expect(FileManager.default.fileExists(atPath: directory.path("out/postcodes.rejects.csv")))
        let built = try buildTestStore(directory, maxRejects: 2)
        #expect(built.rowCounts["Postcode"] == 1)
    }
}
