import Foundation
import GRDB
import SeedInstall
import SeedStore
import SeedTestSupport
import Testing

@testable import SeedPipeline

/// The change counts ride on the delta's diff: whichever way it reads a table (whole, in two halves
/// at once, or again per kind when its changes are too many to hold), each row is counted once.
@Suite("Change counts from the delta's diff")
struct ChangeTallyTests {
    let directory = TemporaryDirectory()

    @Test(arguments: ["whole", "halves", "again per kind"])
    func eachWayOfReadingATableCountsEveryChangeOnce(_ reading: String) throws {
        let nights = DeltaNights(directory: directory)
        let one = try nights.build("1", night: 1, base: nil)
        _ = try nights.build("2", night: 2, base: one.manifestPath)
        let (base, new) = (directory.path("out-1/postcodes.sqlite"), directory.path("out-2/postcodes.sqlite"))
        let queue = try StoreDatabase.openReadOnly(new)
        defer { try? queue.close() }
        let counted: EntityChanges? = try queue.inDatabase { db in
            let schema = try StoreDatabase.embeddedSchema(db, path: new)
            try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [StoreDatabase.immutableURI(base)])
            let tables = try StoreDiff.tables(db)
            let labels = ChangeLabels.of(schema, tables: tables)
            let writer = try DeltaWriter(
                path: directory.path("night.delta.gz"),
                header: DeltaHeader(from: try StoreDiff.release(base), to: try StoreDiff.release(new), tables: tables))
            var entities = ["Postcode": EntityChanges(entity: "Postcode", baseRows: 1_500, rows: 1_488)]
            for (index, table) in tables.enumerated() where table.name == "ZPOSTCODE" {
                var diff = TableDiff(table: table, index: index, db: db, writer: writer, newStorePath: new, basePath: base)
                diff.tally = labels[table.name].map { ChangeTally(labels: $0) }
                if reading == "halves" { diff.splitRows = 100 }
                if reading == "again per kind" { diff.maxHeldBytes = 100 }
                let (operations, tally) = try diff.run()
                #expect(operations == 33)
                try #require(tally).fill(&entities)
            }
            try writer.finish()
            return entities["Postcode"]
        }
        let postcode = try #require(counted)
        #expect((postcode.added, postcode.removed, postcode.changed) == (3, 15, 15))
        #expect(postcode.samples[.removed]?.count == ChangeReport.sampleCount)
        #expect(Set(postcode.samples[.added] ?? []) == ["ZZ2 0AA", "ZZ2 1AA", "ZZ2 2AA"])
    }
}
