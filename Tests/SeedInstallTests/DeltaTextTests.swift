import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

@testable import SeedInstall

/// Values a delta carries byte for byte, through the diff, the file, the reader and the apply.
@Suite("Delta values, exactly")
struct DeltaTextTests {
    let directory = TemporaryDirectory()

    /// A plain-layout store at `name` with `place(id, name, code)` holding `rows` (SQL value lists),
    /// stamped with `version` and the content digest of those rows.
    private func store(_ name: String, version: Int64, rows: [String]) throws -> String {
        let path = directory.path(name)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let store = try StoreConnection(path: path, mode: .writable)
        try store.execute(
            "PRAGMA application_id = \(StoreMetadata.applicationID); PRAGMA user_version = \(StoreMetadata.storeFormatVersion)")
        try store.execute("CREATE TABLE \(StoreMetadata.tableName) (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        try store.execute("CREATE TABLE place (id INTEGER PRIMARY KEY, name TEXT, code BLOB)")
        for row in rows { try store.execute("INSERT INTO place VALUES (\(row))") }
        let digest = try ContentDigest.compute(store, tables: DeltaApplier.plainContentDumps(try DeltaApplier.tables(of: store)))
        try store.execute(
            "INSERT INTO \(StoreMetadata.tableName) VALUES ('dataVersion', ?), ('contentDigest', ?)",
            [.text("\(version)"), .text("\"\(digest)\"")])
        return path
    }

    /// `id`, the type and the bytes (in hex) of every value of `place`.
    private func places(_ path: String) throws -> [String] {
        try StoreConnection(path: path, mode: .immutable).strings(
            "SELECT id || ' ' || typeof(name) || ':' || hex(name) || ' ' || typeof(code) || ':' || hex(code) FROM place ORDER BY id")
    }

    /// Text holding U+0000 (inside, first, last, alone) is bound by its byte count, not cut at the
    /// first NUL as a C string would be: the result has the next release's rows and content digest.
    @Test func textHoldingUPlus0000RoundTrips() throws {
        let base = try store("1.sqlite", version: 1, rows: ["1, 'Kent', X'01'", "2, 'Leeds', NULL"])
        let next = try store(
            "2.sqlite", version: 2,
            rows: [
                "1, CAST(X'4B00656E74' AS TEXT), X'0100'", "2, 'Leeds', X''", "3, CAST(X'00' AS TEXT), NULL",
                "4, CAST(X'0041' AS TEXT), X'00'",
                "5, CAST(X'4100' AS TEXT), ''",
            ])
        let file = directory.path("1-2.delta.gz")
        try StoreDiff().write(base: base, new: next, to: file)
        let delta = try DeltaReader.read(file)
        let texts = delta.operations.flatMap { operation -> [DeltaValue] in
            switch operation {
            case .insert(_, let row): row
            case .update(_, _, let changes): changes.map(\.value)
            default: []
            }
        }
        for text in ["K\u{0}ent", "\u{0}", "\u{0}A", "A\u{0}"] {
            #expect(texts.contains(.text(text)), "the delta carries \(text.debugDescription): \(texts)")
        }
        let result = directory.path("applied.sqlite")
        let metadata = try DeltaApplier.apply(delta, to: base, output: result)
        #expect(metadata.dataVersion == 2)
        #expect(try places(result) == places(next))
    }
}
