import GRDB
import SeedStore
import Testing

@Suite("Bulk inserts")
struct BulkInsertTests {
    /// GRDB turns on SQLite's extended result codes, so a broken constraint comes back as
    /// SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY or _NOTNULL: each is a row to reject, never a thrown error.
    @Test func everyKindOfBrokenConstraintIsReported() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE keyed (k TEXT NOT NULL PRIMARY KEY, v TEXT NOT NULL UNIQUE) WITHOUT ROWID")
            let insert = try BulkInsert(db, sql: "INSERT INTO keyed (k, v) VALUES (?, ?), (?, ?)")
            func row(_ values: [String?]) throws -> BulkInsert.Outcome {
                for (index, value) in values.enumerated() {
                    if let value { insert.bindText(Int32(index + 1), value) } else { insert.bindNull(Int32(index + 1)) }
                }
                return try insert.step()
            }
            #expect(try row(["a", "1", "b", "2"]) == .inserted)
            for (values, kind) in [
                (["a", "3", "c", "4"], "PRIMARY KEY"), (["d", "1", "e", "5"], "UNIQUE"), (["f", nil, "g", "6"], "NOT NULL"),
            ] as [([String?], String)] {
                guard case .constraintViolation(let message) = try row(values) else {
                    Issue.record("\(kind): not reported as a broken constraint")
                    continue
                }
                #expect(message.contains("constraint failed"), "\(kind): \(message)")
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM keyed") == 2)
        }
    }
}
