import Foundation
import GRDB
import SeedInstall
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@testable import SeedPipeline

/// A seed in Core Data's layout with a self-referential many-to-many (`LinkFileTests`' library:
/// `Book.similar` ↔ `Book.similarOf`) has its join table under the name that sorts last and a view
/// under the other (`docs/store-format.md`, "Self-referential join tables"): the build says so, both
/// names read the same rows, and the digest, verify and a delta between two releases see the table only.
@Suite("Seeds with a self-referential many-to-many")
struct SelfReferentialSeedTests {
    let directory = TemporaryDirectory()

    /// Builds a release of the library into `out-<name>`, following `base` when given.
    private func build(_ name: String, _ files: [String: String], version: Int64, base: String? = nil) throws -> BuiltStore {
        let model = directory.write("model.json", LinkFileTests.modelJSON)
        for (file, text) in files { directory.write("in-\(name)/\(file)", text) }
        var options = BuildOptions(files: [directory.path("in-\(name)/books.csv")])
        options.model = model
        options.format = .coreData
        options.base = base
        // The library's second night changes a third of the rows, past the change budget, on purpose.
        options.acceptChange = true
        options.dataVersion = version
        options.outputDirectory = directory.path("out-\(name)")
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000 + TimeInterval(version))
        return try SeedBuilder().build(request)
    }

    /// The (similarOf side, similar side) pairs `name` holds, by book uuid.
    private func pairs(_ path: String, in name: String) throws -> [String] {
        try StoreDatabase.openReadOnly(path).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.ZUUID, b.ZUUID FROM \(name) AS j JOIN ZBOOK AS a ON a.Z_PK = j.Z_1SIMILAROF
                    JOIN ZBOOK AS b ON b.Z_PK = j.Z_1SIMILAR ORDER BY 1, 2
                    """
            ).map { "\($0[0] as String) → \($0[1] as String)" }
        }
    }

    private func views(_ path: String) throws -> [String] {
        try StoreDatabase.openReadOnly(path).read { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'view'")
        }
    }

    @Test func theBuildSaysTheNameIsUncertainAndBothNamesRead() throws {
        let built = try build("1", DeltaTests.first, version: 1)
        #expect(
            built.uncertainJoinTables == [
                .init(relationships: ["Book.similar", "Book.similarOf"], table: "Z_1SIMILAROF", view: "Z_1SIMILAR")
            ])
        #expect(try views(built.storePath) == ["CREATE VIEW Z_1SIMILAR AS SELECT Z_1SIMILAROF, Z_1SIMILAR FROM Z_1SIMILAROF"])
        let rows = try pairs(built.storePath, in: "Z_1SIMILAROF")
        #expect(!rows.isEmpty)
        #expect(try pairs(built.storePath, in: "Z_1SIMILAR") == rows)

        // The digest covers the table once: the same with the view gone, and as the device recomputes it.
        #expect(try DeltaApplier.recomputedContentDigest(of: built.storePath) == built.metadata.contentDigest)
        let copy = directory.path("without-view.sqlite")
        try FileManager.default.copyItem(atPath: built.storePath, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy)
        let queue = try DatabaseQueue(path: copy)
        try queue.write { db in try db.execute(sql: "DROP VIEW Z_1SIMILAR") }
        try queue.close()
        #expect(try storedDigest(copy) == built.metadata.contentDigest)

        let report = try Verifier().verify(
            built.storePath, seedModels: [try ModelLoader.load(directory.path("model.json"))], userModels: [])
        #expect(report.passed && report.result == .compatible, "\(report.text)")
    }

    /// A delta between two releases changes the table's rows only; applied, the view reads them.
    @Test func aDeltaBetweenTwoReleasesKeepsTheView() throws {
        let one = try build("1", DeltaTests.first, version: 1).storePath
        let two = try build("2", DeltaTests.second, version: 2, base: one).storePath
        _ = try StoreDiff().write(base: one, new: two, to: directory.path("1-2.delta.gz"))
        let delta = try DeltaReader.read(directory.path("1-2.delta.gz"))
        #expect(delta.header.tables.contains { $0.name == "Z_1SIMILAROF" })
        #expect(!delta.header.tables.contains { $0.name == "Z_1SIMILAR" })
        let applied = directory.path("applied.sqlite")
        _ = try DeltaApplier.apply(delta, to: one, output: applied)
        #expect(try pairs(applied, in: "Z_1SIMILAROF") == pairs(two, in: "Z_1SIMILAROF"))
        #expect(try pairs(applied, in: "Z_1SIMILAR") == pairs(two, in: "Z_1SIMILAROF"))
        #expect(try pairs(applied, in: "Z_1SIMILAR") != pairs(one, in: "Z_1SIMILAR"), "the night changed the links")
        #expect(try views(applied) == views(two))
    }
}
