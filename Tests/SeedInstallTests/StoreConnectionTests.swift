import Foundation
import SeedTestSupport
import Testing

@testable import SeedInstall

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// The one checked raw-SQLite helper: every failure is a ``StoreError`` with SQLite's code, its
/// message and the SQL; values go in and come back exactly; a statement can be stepped, reset and
/// bound again by hand.
@Suite("StoreConnection")
struct StoreConnectionTests {
    private let directory = TemporaryDirectory()

    private func newStore(_ name: String = "store.sqlite") throws -> StoreConnection {
        let path = directory.path(name)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let store = try StoreConnection(path: path, mode: .writable)
        try store.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, value)")
        return store
    }

    @Test func openingNamesWhatIsWrongWithTheFile() throws {
        do {
            _ = try StoreConnection(path: directory.path("missing.sqlite"), mode: .immutable)
            Issue.record("a missing file opened")
        } catch {
            #expect(error.kind == .notFound && error.path.hasSuffix("missing.sqlite"))
        }
        let text = directory.write("notes.sqlite", String(repeating: "not a database ", count: 100))
        do {
            _ = try StoreConnection(path: text, mode: .immutable)
            Issue.record("a text file opened as a store")
        } catch {
            #expect(error.kind == .notASeedStore)
        }
    }

    @Test func aFailedStatementCarriesSQLitesCodeMessageAndTheSQL() throws {
        let store = try newStore()
        do {
            try store.execute("INSERT INTO missing VALUES (1)")
            Issue.record("an insert into a missing table succeeded")
        } catch {
            #expect(error.kind == .sqlite(code: SQLITE_ERROR))
            #expect(error.message.contains("no such table: missing"))
            #expect(error.sql == "INSERT INTO missing VALUES (1)")
        }
        // A constraint failure reports the extended code.
        try store.execute("INSERT INTO item VALUES (1, 'a')")
        do {
            try store.execute("INSERT INTO item VALUES (1, 'b')")
            Issue.record("a duplicate primary key was inserted")
        } catch {
            // SQLITE_CONSTRAINT_PRIMARYKEY, a macro Swift cannot import.
            #expect(error.kind == .sqlite(code: SQLITE_CONSTRAINT | 6 << 8))
        }
        #expect(throws: StoreError.self) { try store.prepare("-- nothing but a comment") }
    }

    @Test func valuesComeBackWithTheirTypeAndBytes() throws {
        let store = try newStore()
        let values: [StoreConnection.Value] = [
            .null, .integer(.min), .real(-0.0), .text(""), .text("a\u{0}b"), .text("é"), .blob([]), .blob([0, 255, 7]),
        ]
        for (index, value) in values.enumerated() { try store.execute("INSERT INTO item VALUES (?, ?)", [.integer(Int64(index)), value]) }
        let stored = try store.rows("SELECT value FROM item ORDER BY id").map { $0[0] }
        #expect(stored == values)
        #expect(
            try store.strings("SELECT typeof(value) FROM item ORDER BY id") == [
                "null", "integer", "real", "text", "text", "text", "blob", "blob",
            ])
        #expect(try store.strings("SELECT length(CAST(value AS BLOB)) FROM item WHERE id = 4") == ["3"])
    }

    /// A connection's values are the delta's (``SQLiteValue``): what two stores hold is compared as
    /// SQLite stores it, not as Swift would call two values equal.
    @Test func valuesReadBackCompareExactly() throws {
        let store = try newStore()
        try store.execute(
            "INSERT INTO item VALUES (1, ?), (2, ?), (3, ?), (4, ?), (5, 1), (6, 1.0)",
            [.text("\u{E9}"), .text("e\u{301}"), .real(0.0), .real(-0.0)])
        let values = try store.rows("SELECT value FROM item ORDER BY id").map { $0[0] }
        #expect(values[0] != values[1], "composed and decomposed é are different text")
        #expect(values[2] != values[3], "0.0 and -0.0 are different reals")
        #expect(values[4] != values[5], "an integer is not a real")
        #expect(values[0] == DeltaValue.text("\u{E9}"))
    }

    @Test func aPreparedStatementStepsResetsAndBindsBytesAgain() throws {
        let store = try newStore()
        try store.execute("INSERT INTO item VALUES (1, 'one'), (2, X'6F6E65'), (3, ''), (4, X'')")
        let lookup = try store.prepare("SELECT id FROM item WHERE value = ?1 ORDER BY id")
        func ids(_ bytes: [UInt8], as type: StoreConnection.ColumnType) throws -> [Int64] {
            try lookup.reset()
            try bytes.withUnsafeBytes { buffer throws in try lookup.bind(buffer, as: type, at: 1) }
            var found: [Int64] = []
            while try lookup.step() { found.append(lookup.row.integer(0)) }
            return found
        }
        #expect(try ids(Array("one".utf8), as: .text) == [1])
        #expect(try ids(Array("one".utf8), as: .blob) == [2])
        // No bytes bind as empty text or an empty blob, never NULL (which would match nothing).
        #expect(try ids([], as: .text) == [3])
        #expect(try ids([], as: .blob) == [4])
        try lookup.reset()
        try lookup.bind(.integer(1), at: 1)
        #expect(try !lookup.step())
        try lookup.reset()
        do {
            try lookup.bind(.integer(1), at: 2)
            Issue.record("a parameter the statement does not have was bound")
        } catch {
            #expect(error.kind == .sqlite(code: SQLITE_RANGE))
            #expect(error.sql == lookup.sql)
        }
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        let store = try newStore()
        #expect(throws: StoreError.self) {
            try store.inTransaction { () throws(StoreError) in
                try store.execute("INSERT INTO item VALUES (1, 'kept?')")
                try store.execute("INSERT INTO item VALUES (1, 'again')")
            }
        }
        #expect(try store.strings("SELECT count(*) FROM item") == ["0"])
    }

    @Test func stopWhenStopsTheConnectionsStatements() throws {
        let store = try newStore()
        store.stop { true }
        do {
            _ = try store.rows("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
            Issue.record("an endless query ran to its end")
        } catch {
            #expect(error.kind == .sqlite(code: SQLITE_INTERRUPT))
        }
    }
}
