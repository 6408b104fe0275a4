import Foundation
import GRDB
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@testable import SeedPipeline

@Suite("Building a seed store")
struct SeedBuilderTests {
    @Test func buildsTablesRowsAndReferences() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        #expect(built.storePath == directory.path("out/postcodes.sqlite"))
        #expect(built.rowCounts == ["County": 2, "Postcode": 3])
        #expect(built.rejected == 0 && built.rejectsPath == nil)

        let rows = try query(built.storePath) { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.postcode, p.latitude, p.active, p.introduced, p.countryCode, c.code, c.name, c.population
                    FROM Postcode p LEFT JOIN County c ON c.Z_PK = p.county ORDER BY p.postcode
                    """)
        }
        #expect(rows.count == 3)
        #expect(rows[0]["postcode"] == "CT1 1AA")
        #expect(rows[0]["latitude"] == 51.28)
        #expect(rows[0]["active"] == 1)
        #expect(rows[0]["introduced"] == 981_158_400.0)
        #expect(rows[0]["code"] == "KEN")
        #expect(rows[1]["latitude"] as DatabaseValue == .null)
        #expect(rows[1]["active"] == 0)
        #expect(rows[2]["active"] == 1, "an empty required Boolean takes the model's default")
        #expect(rows[2]["introduced"] == 1_577_872_800.0)
        #expect(rows[2]["name"] == "Edinburgh, City of")
        #expect(rows[2]["population"] as DatabaseValue == .null)
    }

    @Test func schemaFollowsTheStoreFormat() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        try query(built.storePath) { db in
            let postcodeSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'Postcode'")!
            #expect(postcodeSQL.contains("\"postcode\" TEXT NOT NULL PRIMARY KEY"))
            #expect(postcodeSQL.hasSuffix("WITHOUT ROWID"))
            #expect(postcodeSQL.contains("FOREIGN KEY (\"county\") REFERENCES \"County\" (\"Z_PK\")"))
            let countySQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'County'")!
            #expect(countySQL.contains("\"Z_PK\" INTEGER PRIMARY KEY"))
            let indexes = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            #expect(indexes == ["County_unique_code", "Postcode_byCountry", "Postcode_county_index"])
            #expect(try Int32.fetchOne(db, sql: "PRAGMA application_id") == StoreMetadata.applicationID)
            #expect(try Int32.fetchOne(db, sql: "PRAGMA user_version") == StoreMetadata.storeFormatVersion)
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "delete")
            #expect(try Int.fetchOne(db, sql: "PRAGMA freelist_count") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_stat1")! > 0, "ANALYZE ran")
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let embedded = try String.fetchOne(db, sql: "SELECT model FROM seed_model WHERE configuration = 'Seed'")!
            let model = try ModelLoader.load(directory.path("model.json"))
            #expect(embedded == String(decoding: try model.canonicalJSON(configuration: "Seed"), as: UTF8.self))
        }
        let mode = try FileManager.default.attributesOfItem(atPath: built.storePath)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o444)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path("out"))
        #expect(leftovers == ["postcodes.sqlite"])
    }

    @Test func metadataCarriesEveryKey() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        let built = try buildTestStore(directory) { $0.dataVersion = 42 }
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: built.storePath))
        typealias Key = StoreMetadata.Key
        #expect(metadata[Key.storeType] == "SQLite")
        #expect(metadata[Key.modelName] == "TestPostcodes")
        #expect(metadata[Key.modelVersionIdentifiers] == .array(["1"]))
        #expect(metadata.configuration == "Seed")
        let model = try ModelLoader.load(directory.path("model.json"))
        #expect(metadata.versionHashes == (try model.versionHashes(configuration: "Seed")))
        #expect(metadata[Key.hashEncodingVersion] == .integer(2))
        #expect(metadata[Key.storeFormatVersion] == .integer(1))
        #expect(metadata.dataVersion == 42)
        #expect(metadata[Key.buildTime] == "2023-11-14T22:13:20Z")
        #expect(metadata[Key.generator] == .string(SeedBuilder.generator))
        #expect(metadata.rowCounts == ["County": 2, "Postcode": 3])
        #expect(metadata.contentDigest?.count == 64)
        // The channel's UUID (dataset and model version), upper-case as Core Data writes it.
        #expect(metadata.storeUUID.flatMap(UUID.init(uuidString:))?.uuidString == metadata.storeUUID)
        #expect(metadata["dataset"] == "postcodes")
        let sources = try #require(metadata[Key.sources]?.arrayValue)
        #expect(sources.count == 2)
        let postcodes = try #require(sources.first { $0.objectValue?["entity"] == "Postcode" }?.objectValue)
        #expect(postcodes["file"] == "postcodes.csv")
        #expect(postcodes["rowsRead"] == .integer(3) && postcodes["rowsLoaded"] == .integer(3) && postcodes["rowsRejected"] == .integer(0))
        let bytes = try Data(contentsOf: directory.url.appendingPathComponent("in/postcodes.csv"))
        #expect(postcodes["bytes"] == .integer(Int64(bytes.count)))
        #expect(postcodes["sha256"]?.stringValue?.count == 64)
    }

    @Test func dataVersionDefaultsToBuildTime() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        let built = try buildTestStore(directory)
        #expect(built.metadata.dataVersion == 2023_11_14_22_13)
    }

    @Test func reproducibleBytes() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        let first = try Data(contentsOf: URL(fileURLWithPath: try buildTestStore(directory).storePath))
        let second = try Data(contentsOf: URL(fileURLWithPath: try buildTestStore(directory).storePath))
        #expect(first == second)
    }

    @Test func shuffledInputGivesTheSameContent() throws {
        let sorted = TemporaryDirectory()
        writeTestInputs(sorted)
        let shuffled = TemporaryDirectory()
        writeTestInputs(
            shuffled,
            postcodes: """
                postcode,county_code,latitude,active,introduced,country_code
                EH1 1AA,EDI,55.95,,2020-01-01T10:00:00Z,S92000003
                CT1 1AB,KEN,,no,,E92000001
                CT1 1AA,KEN,51.28,yes,2001-02-03,E92000001

                """)
        // In the plain layout the postcode is the key, so the rows' order in the file does not show;
        // Core Data's layout numbers rows (Z_PK) in the order they come.
        let a = try buildTestStore(sorted) { $0.format = .plain }
        let b = try buildTestStore(shuffled) { $0.format = .plain }
        #expect(a.metadata.contentDigest == b.metadata.contentDigest)
        #expect(b.rowCounts["Postcode"] == 3)
        let order = try query(b.storePath) { db in try String.fetchAll(db, sql: "SELECT postcode FROM Postcode") }
        #expect(order == ["CT1 1AA", "CT1 1AB", "EH1 1AA"])
    }

    /// Keys out of byte order in three ways: natural order (CT1 … CT9, CT10 … CT40: runs below the
    /// highest key, between keys the table holds none of), one run interleaving keys already in
    /// (the range probe finds them, so its rows go one by one), and shuffled past
    /// KeyOrderTracker.descentLimit descents (the rest is staged). Each time the table holds the
    /// same rows as from sorted input (in the plain layout, the same digest), and the duplicate at
    /// the end is rejected once, naming the line that has the key.
    @Test(arguments: ["natural", "interleaved", "shuffled"], StoreLayout.allCases)
    func keysOutOfOrderGiveTheSameTable(order: String, layout: StoreLayout) throws {
        func input(_ keys: [String]) -> String {
            "postcode,county_code\n" + keys.map { "\($0),KEN\n" }.joined()
        }
        var keys: [String]
        var duplicate: String
        var file: [String]
        switch order {
        case "natural":
            let units = (0..<20).map { "1A" + String(UnicodeScalar(UInt8(65 + $0))) }
            keys = ["CT", "DA", "E"].flatMap { area in (1...40).flatMap { district in units.map { "\(area)\(district) \($0)" } } }
            duplicate = keys[keys.count / 3]
            file = keys + [duplicate]
        case "interleaved":
            let sorted = (0..<6_000).map { String(format: "CT%05d", $0) }
            let moved = sorted.enumerated().filter { $0.offset % 10 == 5 && $0.offset < 2_000 }.map(\.element)
            keys = sorted.filter { !moved.contains($0) } + moved
            // Inside the moved run, in its order: a statement of several rows would stop at it halfway.
            duplicate = sorted[996]
            file = keys
            file.insert(duplicate, at: file.firstIndex(of: sorted[995])! + 1)
        default:
            keys = (0..<(KeyOrderTracker.descentLimit * 3)).map { String(format: "CT%05d", $0) }
            var state: UInt64 = 42
            for index in stride(from: keys.count - 1, to: 0, by: -1) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                keys.swapAt(index, Int((state >> 33) % UInt64(index + 1)))
            }
            duplicate = keys[keys.count / 3]
            file = keys + [duplicate]
        }
        let sortedInput = TemporaryDirectory()
        writeTestInputs(sortedInput, postcodes: input(keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }))
        let unsortedInput = TemporaryDirectory()
        writeTestInputs(unsortedInput, postcodes: input(file))
        let a = try buildTestStore(sortedInput) { $0.format = layout }
        let b = try buildTestStore(unsortedInput, maxRejects: 1) { $0.format = layout }
        #expect(b.rowCounts["Postcode"] == keys.count && b.rejected == 1)
        let line = keys.firstIndex(of: duplicate)! + 2
        #expect(
            b.shownRejects.first?.description.contains("duplicate Postcode.postcode \"\(duplicate)\": line \(line) has it already") == true,
            "\(b.shownRejects.first?.description ?? "no reject")")
        let stored = { (path: String) in try query(path) { db in try String.fetchAll(db, sql: "SELECT postcode FROM Postcode ORDER BY 1") }
        }
        #expect(try stored(a.storePath) == stored(b.storePath))
        // Core Data's unique index, built during the load once keys left their order, is the one built after.
        let indexes = { (path: String) in
            try StoreDatabase.openReadOnly(path).read { db in
                try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name")
            }
        }
        #expect(try indexes(a.storePath) == indexes(b.storePath))
        if layout == .plain { #expect(a.metadata.contentDigest == b.metadata.contentDigest) }
        // Core Data's layout lets keys out of order in unchecked and builds the key's unique index
        // once the file is in; the duplicate fails that, and the file is read again to name its lines.
        let reread = { (built: BuiltStore) in built.warnings.contains { $0.contains("read a second time to name their lines") } }
        #expect(reread(b) == (layout == .coreData), "\(b.warnings)")
        #expect(b.timings.phases.contains { $0.name.hasPrefix("load thrown away") } == (layout == .coreData))

        // Without the duplicate the index proves the keys unique in one go: one read, the same
        // table and indexes, and the digest hashed while loading is the table's.
        let cleanInput = TemporaryDirectory()
        writeTestInputs(cleanInput, postcodes: input(keys))
        let c = try buildTestStore(cleanInput, maxRejects: 0) { $0.format = layout }
        #expect(c.rowCounts["Postcode"] == keys.count && c.rejected == 0 && !reread(c))
        #expect(try stored(a.storePath) == stored(c.storePath))
        #expect(try indexes(a.storePath) == indexes(c.storePath))
        #expect(c.metadata.contentDigest == (try storedDigest(c.storePath)))
        #expect(c.timings.phases.contains { $0.name == "key index Postcode" } == (layout == .coreData))
    }

    /// Rows whose text outgrows a batch's first 256 KiB of text space: the space grows and every
    /// value still arrives whole (the country column, bound from the CSV, and the key).
    @Test(arguments: StoreLayout.allCases)
    func textBeyondABatchsFirstArenaArrivesWhole(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let keys = (0..<400).map { String(format: "CT%04d ", $0) + String(repeating: "x", count: 1_500) }
        let countries = (0..<400).map { "E" + String(repeating: String($0 % 10), count: 800) }
        let rows = zip(keys, countries).map { "\($0),KEN,\($1)\n" }.joined()
        writeTestInputs(directory, postcodes: "postcode,county_code,country_code\n" + rows)
        let built = try buildTestStore(directory) { $0.format = layout }
        #expect(built.rowCounts["Postcode"] == 400)
        let stored = try query(built.storePath) { db in
            try Row.fetchAll(db, sql: "SELECT postcode, countryCode FROM Postcode ORDER BY postcode").map {
                [$0[0] as String, $0[1] as String]
            }
        }
        #expect(stored == zip(keys, countries).map { [$0, $1] })
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))
    }

    @Test(arguments: StoreLayout.allCases)
    func digestHashedWhileLoadingEqualsOneReadBack(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        let built = try buildTestStore(directory) { $0.format = layout }
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))
    }

    @Test func failedBuildLeavesNoStoreUnderItsFinalName() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory, postcodes: "postcode,county_code\nCT1 1AA,NOPE\n")
        #expect(throws: IngestError.self) { try buildTestStore(directory) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("out/postcodes.sqlite")))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path("out"))
        #expect(left == ["postcodes.rejects.csv"])
    }
}

@Suite("Core Data's layout in builds")
struct CoreDataBuildTests {
    /// `"format"` in seedbuild.json chooses the layout; the command line wins; a wrong value names the choices.
    @Test func formatComesFromTheProjectFile() throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        directory.write("seedbuild.json", #"{"model": "model.json", "format": "plain"}"#)
        let project = try #require(try ProjectFile.load(inDirectory: directory.path("")))
        var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
        #expect(try options.resolve(project: project).0.layout == .plain)
        options.format = .coreData
        #expect(try options.resolve(project: project).0.layout == .coreData)
        options.format = nil
        options.model = directory.path("model.json")
        #expect(try options.resolve(project: nil).0.layout == .coreData, "the default")
        directory.write("seedbuild.json", #"{"model": "model.json", "format": "sqlite"}"#)
        let error = #expect(throws: IngestError.self) { try ProjectFile.load(inDirectory: directory.path("")) }
        #expect(
            error?.description.contains(#""format" must be "plain" or "coredata", not "sqlite""#) == true, "\(String(describing: error))")
    }

    /// A self-referential many-to-many gets Core Data's join table, named after the relationship whose
    /// name sorts last, as most of Apple's stores have it (the view under the other name:
    /// `SelfReferentialSeedTests`).
    @Test func selfReferentialManyToManyHasCoreDatasJoinTable() throws {
        let directory = TemporaryDirectory()
        let model = directory.write(
            "model.json",
            """
            {"name": "People", "versionIdentifiers": ["1"],
             "entities": [{"name": "Person",
               "attributes": [{"name": "name", "type": "String", "optional": false}],
               "relationships": [{"name": "friends", "destination": "Person", "inverse": "friendOf", "toMany": true},
                                 {"name": "friendOf", "destination": "Person", "inverse": "friends", "toMany": true}],
               "uniquenessConstraints": [["name"]]}]}
            """)
        let csv = directory.write("persons.csv", "name\nAda\nGrace\n")
        var options = BuildOptions(files: [csv])
        options.model = model
        options.outputDirectory = directory.path("out")
        let (request, warnings) = try options.resolve(project: nil)
        #expect(warnings.isEmpty, "\(warnings)")
        let built = try SeedBuilder().build(request)
        let sql = try StoreDatabase.openReadOnly(built.storePath).read { db in
            try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE tbl_name = 'Z_1FRIENDS' AND sql IS NOT NULL ORDER BY type DESC")
        }
        #expect(
            sql == [
                "CREATE TABLE Z_1FRIENDS ( Z_1FRIENDOF INTEGER, Z_1FRIENDS INTEGER, PRIMARY KEY (Z_1FRIENDOF, Z_1FRIENDS) )",
                "CREATE INDEX Z_1FRIENDS_Z_1FRIENDS_INDEX ON Z_1FRIENDS (Z_1FRIENDS, Z_1FRIENDOF)",
            ])
    }

    /// The digest hashed while rows go in equals one read back, for the values Core Data's layout
    /// keeps in another form: dates since 2001 (whole ones as integers), UUID bytes, inline marked bytes.
    @Test func digestOfConvertedValuesEqualsOneReadBack() throws {
        let directory = TemporaryDirectory()
        let model = directory.write(
            "model.json",
            """
            {"name": "Things", "versionIdentifiers": ["1"],
             "entities": [{"name": "Thing",
               "attributes": [{"name": "code", "type": "String", "optional": false},
                              {"name": "at", "type": "Date"},
                              {"name": "id", "type": "UUID"},
                              {"name": "photo", "type": "Binary", "externalBinaryStorage": true}],
               "uniquenessConstraints": [["code"]]}]}
            """)
        let csv = directory.write(
            "things.csv",
            """
            code,at,id,photo
            a,2024-01-02T03:04:05Z,8C1F0C1E-0001-4000-8000-000000000001,AAEC
            b,2024-01-02T03:04:05.250Z,,
            c,,8c1f0c1e-0002-4000-8000-000000000002,/w==

            """)
        var options = BuildOptions(files: [csv])
        options.model = model
        options.outputDirectory = directory.path("out")
        let (request, _) = try options.resolve(project: nil)
        let built = try SeedBuilder().build(request)
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))
        let stored = try StoreDatabase.openReadOnly(built.storePath).read { db in
            try Row.fetchAll(db, sql: "SELECT typeof(ZAT), length(ZID), hex(ZPHOTO) FROM ZTHING ORDER BY Z_PK").map {
                "\($0[0] as String)/\($0[1] as Int? ?? 0)/\($0[2] as String? ?? "")"
            }
        }
        #expect(stored == ["integer/16/01000102", "real/0/", "null/16/01FF"])
    }
}
