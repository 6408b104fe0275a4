import Foundation
import GRDB
import SeedInstall
import SeedStore
import SeedTestSupport
import Testing

@testable import SeedPipeline

/// Row deltas between releases of one channel: diffed, written, read back, composed and applied.
@Suite("Row deltas")
struct DeltaTests {
    let directory = TemporaryDirectory()

    /// A release of `LinkFileTests`' library: its entity files and link files (many-to-many, self-referential, ordered).
    typealias Release = [String: String]

    static let first: Release = LinkFileTests.entityFiles.merging(LinkFileTests.linkFiles) { $1 }

    /// A night's changes: Emma retitled, Solaris removed, Ubik added; a genre added; links moved.
    static let second: Release = [
        "books.csv": "uuid,title\nb1,Dune\nb2,Emma (annotated)\nb4,Ubik\n",
        "genres.csv": "name,shelf\nScience,1\nFiction,2\nClassic,3\nPoetry,4\n",
        "chapters.csv": "code\nc1\nc2\nc3\n",
        "book_genres.csv": "book_uuid,genres_name,genres_shelf\nb1,Fiction,2\nb2,Classic,3\nb4,Science,1\nb4,Poetry,4\n",
        "books_similar.csv": "book_uuid,similar_uuid\nb2,b1\nb1,b4\nb4,b1\n",
        "book_chapters.csv": "Book UUID,chapter-code,chapters_order\nb1,c1,1\nb1,c2,3\nb1,c3,2\nb2,c1,\n",
    ]

    /// The next night: Dune removed, Emma's title back, Solaris again (a new row), a chapter gone.
    static let third: Release = [
        "books.csv": "uuid,title\nb2,Emma\nb4,Ubik\nb3,Solaris\n",
        "genres.csv": "name,shelf\nScience,1\nFiction,2\nClassic,3\nPoetry,4\n",
        "chapters.csv": "code\nc1\nc3\n",
        "book_genres.csv": "book_uuid,genres_name,genres_shelf\nb2,Classic,3\nb4,Science,1\nb3,Poetry,4\n",
        "books_similar.csv": "book_uuid,similar_uuid\nb3,b4\n",
        "book_chapters.csv": "Book UUID,chapter-code,chapters_order\nb2,c1,\nb3,c3,\n",
    ]

    /// Builds a release into `out-<name>`, following `base` when given; returns the store's path.
    private func build(_ name: String, _ files: Release, version: Int64, layout: StoreLayout, base: String? = nil) throws -> String {
        let model = directory.write("model.json", LinkFileTests.modelJSON)
        for (file, text) in files { directory.write("in-\(name)/\(file)", text) }
        var options = BuildOptions(files: [directory.path("in-\(name)/books.csv")])
        options.model = model
        options.format = layout
        options.base = base
        // A few rows each: one row is a large share of its entity.
        options.acceptChange = true
        options.dataVersion = version
        options.outputDirectory = directory.path("out-\(name)")
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000 + TimeInterval(version))
        return try SeedBuilder().build(request).storePath
    }

    /// Applies a delta file to a copy of `base`, in one transaction as a device would; returns the copy.
    private func apply(_ deltaPath: String, to base: String, as name: String) throws -> String {
        let delta = try DeltaReader.read(deltaPath)
        return try apply(delta, to: base, as: name)
    }

    /// Through the device's applier (SeedInstall): a copy, one transaction, the result checked.
    private func apply(_ delta: Delta, to base: String, as name: String) throws -> String {
        let output = directory.path(name)
        _ = try DeltaApplier.apply(delta, to: base, output: output)
        return output
    }

    private func tables(_ path: String) throws -> [DeltaTable] {
        try StoreDatabase.openReadOnly(path).read { db in try StoreDiff.tables(db) }
    }

    /// Every table's rows, each value with its type, in key order.
    private func contents(_ path: String) throws -> [String: [String]] {
        try StoreDatabase.openReadOnly(path).read { db in
            var result: [String: [String]] = [:]
            for table in try StoreDiff.tables(db) {
                let values = table.columns.map { "typeof(\(quoteIdentifier($0))) || ':' || quote(\(quoteIdentifier($0)))" }.joined(
                    separator: " || '|' || ")
                result[table.name] = try String.fetchAll(db, sql: "SELECT \(values) FROM \(quoteIdentifier(table.name)) ORDER BY 1")
            }
            return result
        }
    }

    /// The result of applying matches `expected` table by table, and its recomputed content digest is the expected one.
    private func expectSame(_ result: String, as expected: String) throws {
        let (got, want) = (try contents(result), try contents(expected))
        #expect(got.keys.sorted() == want.keys.sorted())
        for (table, rows) in want { #expect(got[table] == rows, "table \(table)") }
        let digest = try StoreMetadata.read(at: URL(fileURLWithPath: expected)).contentDigest
        #expect(try storedDigest(result) == digest)
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: result)).contentDigest == digest)
    }

    @Test(arguments: StoreLayout.allCases)
    func aDeltaTurnsTheBaseIntoTheNextRelease(layout: StoreLayout) throws {
        let one = try build("1", Self.first, version: 1, layout: layout)
        let two = try build("2", Self.second, version: 2, layout: layout, base: one)
        let summary = try StoreDiff().write(base: one, new: two, to: directory.path("1-2.delta.gz"))
        #expect(summary.header.from.dataVersion == 1 && summary.header.to.dataVersion == 2)
        let delta = try DeltaReader.read(directory.path("1-2.delta.gz"))
        #expect(delta.operations.count == summary.operations)
        // Join tables are keyed by both columns and change row by row, like the entities.
        let joins = delta.header.tables.filter { $0.keyColumns.count == 2 }
        #expect(!joins.isEmpty)
        #expect(delta.operations.contains { joins.contains(delta.header.tables[$0.table]) })
        try expectSame(try apply(directory.path("1-2.delta.gz"), to: one, as: "applied.sqlite"), as: two)
        // An unchanged release gives an empty delta (but for its metadata tables).
        let again = try StoreDiff().write(base: two, new: two, to: directory.path("2-2.delta.gz"))
        #expect(again.operations == 0)
    }

    @Test(arguments: StoreLayout.allCases)
    func composedDeltasSkipReleases(layout: StoreLayout) throws {
        let one = try build("1", Self.first, version: 1, layout: layout)
        let two = try build("2", Self.second, version: 2, layout: layout, base: one)
        let three = try build("3", Self.third, version: 3, layout: layout, base: two)
        try StoreDiff().write(base: one, new: two, to: directory.path("1-2.delta.gz"))
        try StoreDiff().write(base: two, new: three, to: directory.path("2-3.delta.gz"))
        let (first, second) = (try DeltaReader.read(directory.path("1-2.delta.gz")), try DeltaReader.read(directory.path("2-3.delta.gz")))
        let composed = try Delta.compose(first, second)
        #expect(composed.header.from == first.header.from && composed.header.to == second.header.to)
        try expectSame(try apply(composed, to: one, as: "composed.sqlite"), as: three)
        // Written and read back, the composed delta is the same.
        let writer = try DeltaWriter(path: directory.path("1-3.delta.gz"), header: composed.header)
        for operation in composed.operations { try writer.write(operation) }
        try writer.finish()
        #expect(try DeltaReader.read(directory.path("1-3.delta.gz")) == composed)
        // Out of order, the chain does not join.
        let backwards = #expect(throws: DeltaError.self) { try Delta.compose(second, first) }
        #expect(backwards?.kind == .wrongBase)
    }

    @Test func composingRowByRow() throws {
        let table = DeltaTable(name: "T", columns: ["id", "a", "b"], keyColumns: [0])
        let (a, b, c) = (
            DeltaRelease(dataVersion: 1, contentDigest: "a"), DeltaRelease(dataVersion: 2, contentDigest: "b"),
            DeltaRelease(dataVersion: 3, contentDigest: "c")
        )
        func row(_ id: Int64, _ value: String) -> [DeltaValue] { [.integer(id), .text(value), .null] }
        let first = Delta(
            header: DeltaHeader(from: a, to: b, tables: [table]),
            operations: [
                .delete(table: 0, key: [.integer(1)]), .delete(table: 0, key: [.integer(2)]),
                .insert(table: 0, row: row(10, "new")), .insert(table: 0, row: row(11, "gone")),
                .update(table: 0, key: [.integer(3)], changes: [DeltaChange(column: 1, value: .text("x"))]),
                .update(table: 0, key: [.integer(4)], changes: [DeltaChange(column: 1, value: .text("y"))]),
            ])
        let second = Delta(
            header: DeltaHeader(from: b, to: c, tables: [table]),
            operations: [
                .delete(table: 0, key: [.integer(11)]), .delete(table: 0, key: [.integer(4)]),
                .insert(table: 0, row: row(1, "back")),
                .update(table: 0, key: [.integer(10)], changes: [DeltaChange(column: 2, value: .integer(5))]),
                .update(table: 0, key: [.integer(3)], changes: [DeltaChange(column: 2, value: .real(1))]),
            ])
        let composed = try Delta.compose(first, second)
        #expect(
            composed.operations == [
                .delete(table: 0, key: [.integer(1)]), .delete(table: 0, key: [.integer(2)]), .delete(table: 0, key: [.integer(4)]),
                .insert(table: 0, row: row(1, "back")), .insert(table: 0, row: [.integer(10), .text("new"), .integer(5)]),
                .update(
                    table: 0, key: [.integer(3)],
                    changes: [DeltaChange(column: 1, value: .text("x")), DeltaChange(column: 2, value: .real(1))]),
            ])
        let twice = Delta(header: DeltaHeader(from: b, to: c, tables: [table]), operations: [.insert(table: 0, row: row(10, "again"))])
        let error = #expect(throws: DeltaError.self) { try Delta.compose(first, twice) }
        #expect(
            error?.kind == .inconsistent && error?.message.contains("table T inserts the row id = 10") == true,
            "\(String(describing: error))")
    }

    @Test func aDeltaForAnotherStoreIsRefusedBeforeAnyWrite() throws {
        let one = try build("1", Self.first, version: 1, layout: .coreData)
        let two = try build("2", Self.second, version: 2, layout: .coreData, base: one)
        let three = try build("3", Self.third, version: 3, layout: .coreData, base: two)
        try StoreDiff().write(base: two, new: three, to: directory.path("2-3.delta.gz"))
        let before = try FileDigest(of: one).sha256
        let wrongBase = #expect(throws: DeltaError.self) { try apply(directory.path("2-3.delta.gz"), to: one, as: "wrong.sqlite") }
        #expect(wrongBase?.kind == .wrongBase && wrongBase?.message.contains("data version 2") == true)
        #expect(try FileDigest(of: one).sha256 == before, "the base is untouched")
        #expect(!FileManager.default.fileExists(atPath: directory.path("wrong.sqlite")), "nothing is left under the output's name")
        let plain = try build("plain", Self.second, version: 2, layout: .plain)
        let schema = #expect(throws: DeltaError.self) { try apply(directory.path("2-3.delta.gz"), to: plain, as: "other.sqlite") }
        #expect(schema?.kind == .schemaMismatch)
        let diff = #expect(throws: DeltaError.self) { try StoreDiff().write(base: plain, new: three, to: directory.path("x.delta.gz")) }
        #expect(diff?.kind == .schemaMismatch && diff?.message.contains(plain) == true && diff?.message.contains(three) == true)
        #expect(!FileManager.default.fileExists(atPath: directory.path("x.delta.gz")))
    }

    /// A delta whose rows do not give the release it states (built for other content, or tampered
    /// with before signing) is refused once applied: the digest is recomputed from the rows.
    @Test func aDeltaWhoseResultIsNotItsReleaseIsRefused() throws {
        let one = try build("1", Self.first, version: 1, layout: .coreData)
        let two = try build("2", Self.second, version: 2, layout: .coreData, base: one)
        try StoreDiff().write(base: one, new: two, to: directory.path("1-2.delta.gz"))
        var delta = try DeltaReader.read(directory.path("1-2.delta.gz"))
        // Drop one row change but keep the metadata that states the release's digest.
        let metadataTables = Set(["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE"])
        let dropped = try #require(delta.operations.firstIndex { !metadataTables.contains(delta.header.tables[$0.table].name) })
        delta.operations.remove(at: dropped)
        let error = #expect(throws: DeltaError.self) { try DeltaApplier.apply(delta, to: one, output: directory.path("bad.sqlite")) }
        #expect(error?.kind == .inconsistent && error?.message.contains("content digest") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: directory.path("bad.sqlite")))
    }

    @Test func everyValueTypeRoundTripsExactly() throws {
        let values: [DeltaValue] = [
            .null, .integer(0), .integer(.max), .integer(.min), .integer(1 << 53 + 1),
            .real(0), .real(-0.0), .real(.nan), .real(.infinity), .real(-.infinity), .real(.leastNonzeroMagnitude), .real(0.1),
            .text(""), .text("é"), .text("e\u{301}"), .text("a\0b"), .blob([]), .blob([0, 255, 0]),
        ]
        #expect(DeltaValue.real(-0.0) != .real(0) && DeltaValue.integer(1) != .real(1) && DeltaValue.text("é") != .text("e\u{301}"))
        #expect(DeltaValue.text("") != .null && DeltaValue.blob([]) != .text(""))
        let table = DeltaTable(name: "v", columns: ["id", "value"], keyColumns: [0])
        let header = DeltaHeader(
            from: DeltaRelease(dataVersion: 1, contentDigest: "a"), to: DeltaRelease(dataVersion: 2, contentDigest: "b"), tables: [table])
        let operations = values.enumerated().map { DeltaOperation.insert(table: 0, row: [.integer(Int64($0.offset)), $0.element]) }
        let writer = try DeltaWriter(path: directory.path("values.delta.gz"), header: header)
        for operation in operations { try writer.write(operation) }
        try writer.finish()
        let delta = try DeltaReader.read(directory.path("values.delta.gz"))
        #expect(delta == Delta(header: header, operations: operations))

        // Through SQLite, in a column without affinity: every value as stored but NaN, which SQLite stores as NULL.
        let queue = try DatabaseQueue(path: directory.path("values.sqlite"))
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE v (id INTEGER PRIMARY KEY, value)")
            let kept = values.filter { if case .text(let text) = $0 { !text.contains("\0") } else { true } }
            let storable = Delta(
                header: header, operations: kept.enumerated().map { .insert(table: 0, row: [.integer(Int64($0.offset)), $0.element]) })
            for statement in try DeltaPlan.statements(for: storable, target: DeltaTarget(tables: [table], release: header.from)) {
                try db.execute(sql: statement.sql, arguments: StatementArguments(statement.values.map(\.databaseValue)))
            }
            // NaN is stored as NULL by SQLite; text with a NUL is left out above (GRDB binds text up to its first NUL).
            let stored = try DatabaseValue.fetchAll(db, sql: "SELECT value FROM v ORDER BY id").map(DeltaValue.init)
            #expect(stored == kept.map { if case .real(let number) = $0, number.isNaN { .null } else { $0 } })
        }
    }

    /// The diff reads both tables in key order side by side: keys of every type and a compound key
    /// sort as SQLite sorts them, deletes, inserts and updates interleave in any way, and a diff
    /// that holds too many changed rows reads the table again for each kind. Applied to the base,
    /// each delta gives the new table exactly.
    @Test(arguments: [(64 << 20, false), (64, false), (64 << 20, true), (64, true)])
    func theDiffMergesTablesInKeyOrder(maxHeldBytes: Int, inHalves: Bool) throws {
        let (base, new) = (
            directory.path("base-\(maxHeldBytes)-\(inHalves).sqlite"), directory.path("new-\(maxHeldBytes)-\(inHalves).sqlite")
        )
        let keys: [String] = ["-9.5", "-5", "0", "3", "2.5", "'A'", "'B'", "'a'", "'b'", "'é'", "'ab'", "x'00'", "x'0001'", "x'01'"]
        func rows(_ pick: (Int) -> Bool, value: (Int) -> String) -> String {
            keys.indices.filter(pick).flatMap { i in [1, 2].map { "(\(keys[i]), \($0), \(value(i)))" } }.joined(separator: ", ")
        }
        let tables = "CREATE TABLE k (a, b INTEGER, v, PRIMARY KEY (a, b)) WITHOUT ROWID; CREATE TABLE r (id INTEGER PRIMARY KEY, v)"
        let contents = [
            (base, rows({ $0 != 7 }) { "\($0)" }, "(1, 1.0), (2, 0.0), (4, 'x'), (9, NULL)"),
            (new, rows({ $0 != 11 }) { $0 % 2 == 0 ? "'\($0)'" : "\($0)" }, "(1, 1), (2, -0.0), (3, 'new'), (9, NULL)"),
        ]
        for (path, k, r) in contents {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: "\(tables); INSERT INTO k VALUES \(k); INSERT INTO r VALUES \(r)") }
            try queue.close()
        }
        let queue = try StoreDatabase.openReadOnly(new)
        let release = DeltaRelease(dataVersion: 1, contentDigest: "")
        let headerTables = try queue.read { db in try StoreDiff.tables(db) }
        let output = directory.path("k-\(maxHeldBytes)-\(inHalves).delta.gz")
        let writer = try DeltaWriter(path: output, header: DeltaHeader(from: release, to: release, tables: headerTables))
        try queue.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [StoreDatabase.immutableURI(base)])
            for (index, table) in headerTables.enumerated() {
                // In halves: the integer-keyed table is read in two halves at once, on two connections.
                var diff = TableDiff(table: table, index: index, db: db, writer: writer, maxHeldBytes: maxHeldBytes)
                if inHalves { (diff.newStorePath, diff.basePath, diff.splitRows) = (new, base, 2) }
                _ = try diff.run()
            }
        }
        try queue.close()
        try writer.finish()
        let delta = try DeltaReader.read(output)
        let patched = try DatabaseQueue(path: base)
        try patched.write { db in
            for statement in try DeltaPlan.statements(for: delta, target: DeltaTarget(tables: headerTables, release: release)) {
                try db.execute(sql: statement.sql, arguments: StatementArguments(statement.values.map(\.databaseValue)))
            }
        }
        func dump(_ queue: DatabaseQueue) throws -> [[DeltaValue]] {
            try queue.read { db in
                try ["SELECT a, b, v FROM k ORDER BY a, b", "SELECT id, v FROM r ORDER BY id"].flatMap { sql in
                    try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(DeltaValue.init) }
                }
            }
        }
        let target = try DatabaseQueue(path: new)
        #expect(try dump(patched) == dump(target))
        // Keys in both stores are paired (a key sorted out of place would come as a delete and an insert):
        // the rows of x'00' deleted (x'0001' follows it), of 'a' inserted ('ab' follows it), of the even keys updated.
        let updated = keys.indices.filter { $0 % 2 == 0 }.count * 2
        #expect(delta.operations.filter { $0.table == 0 }.count == 4 + updated)
        // The sign of a zero and a type change alone are changes too.
        #expect(delta.operations.contains(.update(table: 1, key: [.integer(2)], changes: [DeltaChange(column: 1, value: .real(-0.0))])))
        #expect(delta.operations.contains(.update(table: 1, key: [.integer(1)], changes: [DeltaChange(column: 1, value: .integer(1))])))
    }

    /// The diff sees a change of type alone (SQLite's `1 = 1.0`) and of NULL to a value and back.
    @Test func theDiffSeesTypeChanges() throws {
        let (base, new) = (directory.path("base.sqlite"), directory.path("new.sqlite"))
        for (path, values) in [(base, "(1, 1), (2, NULL), (3, 'x'), (4, 5)"), (new, "(1, 1.0), (2, ''), (3, NULL), (4, 5)")] {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, value); INSERT INTO t VALUES \(values)") }
            try queue.close()
        }
        let queue = try StoreDatabase.openReadOnly(new)
        let table = DeltaTable(name: "t", columns: ["id", "value"], keyColumns: [0])
        let release = DeltaRelease(dataVersion: 1, contentDigest: "")
        let writer = try DeltaWriter(path: directory.path("t.delta.gz"), header: DeltaHeader(from: release, to: release, tables: [table]))
        try queue.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [StoreDatabase.immutableURI(base)])
            #expect(try TableDiff(table: table, index: 0, db: db, writer: writer).run().operations == 3)
        }
        try writer.finish()
        #expect(
            try DeltaReader.read(directory.path("t.delta.gz")).operations == [
                .update(table: 0, key: [.integer(1)], changes: [DeltaChange(column: 1, value: .real(1))]),
                .update(table: 0, key: [.integer(2)], changes: [DeltaChange(column: 1, value: .text(""))]),
                .update(table: 0, key: [.integer(3)], changes: [DeltaChange(column: 1, value: .null)]),
            ])
    }
}

extension DeltaValue {
    /// The value as GRDB binds it (tests apply plans with GRDB, as the build side may).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(Array(data))
        }
    }
}
