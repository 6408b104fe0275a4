import Foundation
import GRDB
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// The loader converts dates into Core Data's stored form itself and writes constant columns into
/// its `INSERT` as literals; the store must hold what SQLite made of the old `(? - 978307200)`.
@Suite("Values loaded as Core Data's layout keeps them")
struct CoreDataValueTests {
    private let directory = TemporaryDirectory()

    /// A Postcode model whose dates are a key, an optional value and an absent one with a default.
    private static let model = """
        {
          "name": "Dates", "versionIdentifiers": ["1"],
          "configurations": [{"name": "Seed", "entities": ["Postcode"]}],
          "entities": [
            {"name": "Postcode",
             "attributes": [{"name": "postcode", "type": "String", "optional": false},
                            {"name": "introduced", "type": "Date", "optional": false},
                            {"name": "terminated", "type": "Date"},
                            {"name": "reviewed", "type": "Date", "optional": false, "default": "123.25"},
                            {"name": "note", "type": "String"}],
             "uniquenessConstraints": [["introduced"]]}
          ]
        }
        """

    private func build(_ postcodes: String) throws -> BuiltStore {
        directory.write("model.json", Self.model)
        directory.write("in/postcodes.csv", postcodes)
        var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
        options.model = directory.path("model.json")
        options.outputDirectory = directory.path("out")
        options.maxRejects = 10
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        return try SeedBuilder().build(request)
    }

    /// Each column's SQLite type and value as text, row by row in `Z_PK` order.
    private func stored(_ path: String, _ columns: [String]) throws -> [[String]] {
        let list = columns.map { "typeof(\($0)) || ':' || quote(\($0))" }.joined(separator: ", ")
        return try StoreDatabase.openReadOnly(path).read { db in
            try Row.fetchAll(db, sql: "SELECT \(list) FROM ZPOSTCODE ORDER BY Z_PK").map { row in columns.indices.map { row[$0] } }
        }
    }

    /// What SQLite stores for `seconds` (since 1970) bound to `(? - 978307200)` in a TIMESTAMP column.
    private func keptByTheOldInsert(_ seconds: [Double?]) throws -> [String] {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (k INTEGER PRIMARY KEY, d TIMESTAMP)")
            for value in seconds { try db.execute(sql: "INSERT INTO t (d) VALUES (? - 978307200)", arguments: [value]) }
            return try String.fetchAll(db, sql: "SELECT typeof(d) || ':' || quote(d) FROM t ORDER BY k")
        }
    }

    @Test func datesAreKeptAsTheSQLExpressionKeptThem() throws {
        // Whole and fractional seconds, before 1970 and between 1970 and 2001, offsets, in key order.
        let texts = [
            "1969-07-20T20:17:40Z", "1970-01-01", "1999-12-31T23:59:59.5Z", "2001-01-01", "2001-01-01T00:00:00.001Z",
            "2024-05-01T12:30:00+02:00", "2024-05-01T12:30:00.75Z",
        ]
        let seconds: [Double] = [-14_182_940, 0, 946_684_799.5, 978_307_200, 978_307_200.001, 1_714_559_400, 1_714_566_600.75]
        let rows = texts.enumerated().map { "P\($0.offset),\($0.element),\($0.offset % 2 == 0 ? "" : $0.element)\n" }.joined()
        let built = try build("postcode,introduced,terminated\n" + rows)
        #expect(built.rowCounts["Postcode"] == texts.count && built.rejected == 0)

        let columns = try stored(built.storePath, ["ZINTRODUCED", "ZTERMINATED", "ZREVIEWED", "ZNOTE", "Z_ENT", "Z_OPT"])
        #expect(columns.map { $0[0] } == (try keptByTheOldInsert(seconds)))
        #expect(columns.map { $0[1] } == (try keptByTheOldInsert(seconds.enumerated().map { $0.offset % 2 == 0 ? nil : $0.element })))
        // The default is seconds since 2001 (Xcode's defaultValueString), kept as given.
        #expect(Set(columns.map { $0[2] }) == ["real:123.25"])
        // Columns no field feeds: literals in the INSERT, the same in every row.
        #expect(Set(columns.map { $0[3] }) == ["null:NULL"])
        #expect(Set(columns.map { $0[5] }) == ["integer:1"])
        #expect(Set(columns.map { $0[4] }).count == 1 && columns[0][4].hasPrefix("integer:"))
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))
    }

    /// The key's order is tracked on the stored values, whole dates INTEGER and others REAL,
    /// compared as numbers: a fractional date below a whole one is below it, and a duplicate of an
    /// earlier fractional date is named by its own line, not the highest key's.
    @Test func wholeAndFractionalDateKeysCompareAsNumbers() throws {
        let built = try build(
            """
            postcode,introduced
            P1,2024-01-01
            P2,2024-01-01T00:00:00.5Z
            P3,2024-01-02
            P4,2024-01-01T00:00:00.5Z
            P5,2024-01-02T00:00:00Z
            P6,2024-01-03

            """)
        #expect(built.rowCounts["Postcode"] == 4)
        let rejects = built.shownRejects.map(\.description)
        #expect(rejects.count == 2)
        #expect(rejects.first { $0.contains("postcodes.csv:5:") }?.contains("line 3 has it already") == true, "\(rejects)")
        #expect(rejects.first { $0.contains("postcodes.csv:6:") }?.contains("line 4 has it already") == true, "\(rejects)")
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))
    }
}
