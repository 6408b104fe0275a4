import Foundation
import Testing

/// A store seedbuild built in the plain layout (whose keyed tables are `WITHOUT ROWID`) passes
/// `seedbuild verify`, whatever the column order of its model.
@Suite("verify on WITHOUT ROWID tables")
struct VerifyKeyLayoutTests {
    /// Shaped like LoopKit's CachedCarbObject: many NOT NULL attributes that sort before the key
    /// (`uuid`), which once put the key after them and made SQLite 3.40's quick_check report
    /// "NULL value in CachedCarbObject.anchorKey" on a sound store.
    private let model = """
        {"name": "Carbs", "versionIdentifiers": ["1"],
         "entities": [{"name": "CachedCarbObject",
           "attributes": [
             {"name": "absorptionTime", "type": "Double"},
             {"name": "addedDate", "type": "Date"},
             {"name": "anchorKey", "type": "Integer 64", "optional": false, "default": "0"},
             {"name": "createdByCurrentApp", "type": "Boolean", "optional": false},
             {"name": "foodType", "type": "String"},
             {"name": "grams", "type": "Double", "optional": false},
             {"name": "operation", "type": "Integer 16", "optional": false, "default": "0"},
             {"name": "provenanceIdentifier", "type": "String", "optional": false},
             {"name": "startDate", "type": "Date", "optional": false},
             {"name": "syncIdentifier", "type": "String"},
             {"name": "syncVersion", "type": "Integer 32"},
             {"name": "userCreatedDate", "type": "Date"},
             {"name": "uuid", "type": "String", "optional": false}],
           "uniquenessConstraints": [["uuid"]]}]}
        """

    @Test func aStoreWithItsKeyAfterNotNullColumnsVerifies() throws {
        let project = try SampleProject()
        project.write("carbs/model.json", model)
        project.write(
            "carbs/cachedcarbobjects.csv",
            """
            uuid,anchor_key,created_by_current_app,grams,provenance_identifier,start_date,food_type,absorption_time
            8c1f0c1e-0001,1,yes,12.5,com.loopkit.Loop,2024-01-02T08:00:00Z,,10800
            8c1f0c1e-0002,2,no,30,com.apple.Health,2024-01-02T12:30:00Z,🍕,
            8c1f0c1e-0003,3,yes,5,com.loopkit.Loop,2024-01-03T07:15:00Z,apple,1800

            """)
        let build = try runSeedbuild(
            [
                "build", "carbs/cachedcarbobjects.csv", "--model", "carbs/model.json", "--dataset", "cachedcarbobjects", "--out",
                "carbs/out", "--format", "plain",
            ], in: project.url)
        #expect(build.status == 0, "\(build.stderr)")
        for file in ["carbs/out/cachedcarbobjects.sqlite", "carbs/out/manifest.json"] {
            let verify = try runSeedbuild(["verify", file, "--model", "carbs/model.json"], in: project.url)
            #expect(verify.status == 0, "\(file): \(verify.stdout) \(verify.stderr)")
            #expect(!verify.stdout.contains("NULL value"))
        }
        // SQLite itself agrees, and the key is the table's first column.
        let store = project.path("carbs/out/cachedcarbobjects.sqlite")
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        check.arguments = [
            "-readonly", store,
            "PRAGMA quick_check; PRAGMA integrity_check; SELECT name FROM pragma_table_info('CachedCarbObject') LIMIT 1;",
        ]
        let out = Pipe()
        check.standardOutput = out
        try check.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(text == "ok\nok\nuuid\n")
    }
}
