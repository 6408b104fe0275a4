import Foundation
import SeedTestSupport
import Testing

@testable import SeedInstall

/// The set digest's arithmetic and its reading of a whole store.
@Suite("The set digest")
struct SetDigestTests {
    @Test func addingAndRemovingAreInverseAndOrderFree() throws {
        let rows = (0..<50).map {
            SetDigest.Element.row(table: "t", columns: ["a", "b"], values: [.integer(Int64($0)), .text("row \($0)")])
        }
        var forward = SetDigest()
        for row in rows { forward.insert(row) }
        var backward = SetDigest()
        for row in rows.reversed() { backward.insert(row) }
        #expect(forward == backward)
        var removed = forward
        for row in rows.dropFirst(10) { removed.remove(row) }
        var first = SetDigest()
        for row in rows.prefix(10) { first.insert(row) }
        #expect(removed == first)
        #expect(SetDigest(forward.description) == forward)
        // The same row in another table, or under another column name, is another element.
        var moved = SetDigest()
        moved.insert(SetDigest.Element.row(table: "u", columns: ["a", "b"], values: [.integer(0), .text("row 0")]))
        var renamed = SetDigest()
        renamed.insert(SetDigest.Element.row(table: "t", columns: ["a", "c"], values: [.integer(0), .text("row 0")]))
        var original = SetDigest()
        original.insert(rows[0])
        #expect(moved != original && renamed != original)
    }

    /// A table large enough to be read in two halves on two threads, and one without rowids: the same
    /// digest as each row's encoding added one by one.
    @Test func aWholeStoreReadInHalvesIsEveryRowAdded() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("big.sqlite")
        var sql = "CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);"
        sql += "CREATE TABLE keyed (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID; CREATE INDEX byName ON big(name);"
        sql += "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000) "
        sql += "INSERT INTO big SELECT i, 'name ' || i, i * 0.5, CASE WHEN i % 7 = 0 THEN NULL ELSE randomblob(i % 13) END FROM n;"
        sql += "INSERT INTO keyed VALUES ('x', 1), ('y', 2);"
        #expect(try shell("sqlite3 '\(path)' \"\(sql)\"").status == 0)
        let store = try StoreConnection(path: path, mode: .immutable)
        var expected = SetDigest()
        for table in try store.tables() {
            for row in try store.rows("SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)") {
                expected.insert(SetDigest.Element.row(table: table.name, columns: table.columns, values: row))
            }
        }
        for row in try store.rows(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        {
            let text = row.map { value -> String in if case .text(let text) = value { text } else { "" } }
            expected.insert(SetDigest.Element.schema(type: text[0], name: text[1], table: text[2], sql: text[3]))
        }
        #expect(try SetDigest.compute(of: path) == expected)
    }
}
