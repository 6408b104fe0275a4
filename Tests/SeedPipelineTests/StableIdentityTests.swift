import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// A build that follows a base release keeps its objects' numbers and the store's UUID, so Core
/// Data's object IDs (`x-coredata://<UUID>/<Entity>/p<Z_PK>`) survive from one release to the next.
@Suite("Stable identity across releases")
struct StableIdentityTests {
    let directory = TemporaryDirectory()

    /// Counties (keyed by code), postcodes (keyed by postcode) and visits (no key at all).
    static let modelJSON = """
        {"name": "Places", "versionIdentifiers": ["1"],
         "entities": [
          {"name": "County", "attributes": [{"name": "code", "type": "String", "optional": false}, {"name": "name", "type": "String"}],
           "uniquenessConstraints": [["code"]],
           "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "county", "toMany": true},
                             {"name": "visits", "destination": "Visit", "inverse": "county", "toMany": true}]},
          {"name": "Postcode", "attributes": [{"name": "postcode", "type": "String", "optional": false}, {"name": "ward", "type": "String"}],
           "uniquenessConstraints": [["postcode"]],
           "relationships": [{"name": "county", "destination": "County", "inverse": "postcodes"}]},
          {"name": "Visit", "attributes": [{"name": "day", "type": "String"}, {"name": "count", "type": "Integer 32"}],
           "relationships": [{"name": "county", "destination": "County", "inverse": "visits"}]}
         ]}
        """

    static let first = (
        counties: "code,name\nKEN,Kent\nSUR,Surrey\nESX,Essex\n",
        postcodes: "postcode,county_code,ward\nCT1 1AA,KEN,Park\nCT1 1AB,KEN,Park\nGU1 1AA,SUR,Hill\nCM1 1AA,ESX,Mill\nCM1 1AB,ESX,Mill\n",
        visits: "day,count,county_code\nmon,3,KEN\nmon,3,KEN\ntue,1,SUR\nwed,7,ESX\n"
    )

    /// Row changes of a night: a postcode added at the top, one removed, one changed; the highest-numbered county removed.
    static let second = (
        counties: "code,name\nKEN,Kent\nSUR,Surrey\n",
        postcodes: "postcode,county_code,ward\nBR1 1AA,KEN,New\nCT1 1AA,KEN,Park\nGU1 1AA,SUR,Lake\nCT1 1AB,KEN,Park\n",
        visits: "day,count,county_code\ntue,1,SUR\nmon,3,KEN\nthu,2,SUR\nmon,3,KEN\n"
    )

    /// Builds `files` into `out-<name>`, following `base` when given.
    @discardableResult
    private func build(
        _ name: String, _ files: (counties: String, postcodes: String, visits: String), layout: StoreLayout, base: String? = nil,
        dataset: String? = nil
    ) throws -> String {
        try buildStore(name, files, layout: layout, base: base, dataset: dataset).storePath
    }

    private func buildStore(
        _ name: String, _ files: (counties: String, postcodes: String, visits: String), layout: StoreLayout, base: String? = nil,
        dataset: String? = nil,
        output: String? = nil, dataVersion: Int64? = nil
    ) throws -> BuiltStore {
        let input = "in-\(name)"
        directory.write("\(input)/counties.csv", files.counties)
        directory.write("\(input)/postcodes.csv", files.postcodes)
        directory.write("\(input)/visits.csv", files.visits)
        var options = BuildOptions(files: [directory.path("\(input)/postcodes.csv")])
        options.model = directory.write("model.json", Self.modelJSON)
        options.outputDirectory = output ?? directory.path("out-\(name)")
        options.dataVersion = dataVersion
        // A few rows: their deltas are a large share of their artifact, and one row a large share of its entity.
        if base != nil { options.deltaMaxShare = 1 }
        options.acceptChange = true
        options.format = layout
        options.base = base
        options.dataset = dataset ?? "places"
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        return try SeedBuilder().build(request)
    }

    /// The store's own tables as they are (``query(_:_:)`` shows Core Data's through the plain layout).
    private func raw<T>(_ store: String, _ body: (Database) throws -> T) throws -> T {
        let queue = try StoreDatabase.openReadOnly(store)
        defer { try? queue.close() }
        return try queue.read(body)
    }

    /// Key → number of each row of a table.
    private func numbers(_ store: String, table: String, key: String) throws -> [String: Int64] {
        try raw(store) { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT \(key), Z_PK FROM \(table)").map {
                    ($0[0] as String, $0[1] as Int64)
                })
        }
    }

    @Test func coreDataObjectsKeepTheirNumbersAndTheStoreItsUUID() throws {
        let one = try build("1", Self.first, layout: .coreData)
        let two = try build("2", Self.second, layout: .coreData, base: one)
        let (before, after) = (
            try numbers(one, table: "ZPOSTCODE", key: "ZPOSTCODE"), try numbers(two, table: "ZPOSTCODE", key: "ZPOSTCODE")
        )
        for postcode in ["CT1 1AA", "CT1 1AB", "GU1 1AA"] { #expect(after[postcode] == before[postcode], "\(postcode) kept its number") }
        // New rows above the highest number ever issued, in file order; removed ones leave gaps.
        #expect(after["BR1 1AA"] == 6)
        #expect(try numbers(two, table: "ZCOUNTY", key: "ZCODE") == ["KEN": 1, "SUR": 2])
        let metadata = (try StoreMetadata.read(at: URL(fileURLWithPath: one)), try StoreMetadata.read(at: URL(fileURLWithPath: two)))
        #expect(metadata.0.storeUUID == metadata.1.storeUUID && metadata.0.storeUUID?.uppercased() == metadata.0.storeUUID)
        try raw(two) { db in
            // Z_MAX never goes down: ESX (3) is gone, and 3 is never issued again.
            let zmax = try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY").map {
                    ($0[0] as String, $0[1] as Int64)
                })
            #expect(zmax["County"] == 3 && zmax["Postcode"] == 6)
            // References follow: each postcode still points at its county.
            let county = try String.fetchOne(
                db, sql: "SELECT c.ZCODE FROM ZPOSTCODE p JOIN ZCOUNTY c ON c.Z_PK = p.ZCOUNTY WHERE p.ZPOSTCODE = 'GU1 1AA'")
            #expect(county == "SUR")
        }
        // Visits have no key: unchanged rows keep their numbers, alike rows pair in order, the rest are new.
        let visits = try raw(two) { db in
            try Row.fetchAll(db, sql: "SELECT ZDAY, Z_PK FROM ZVISIT ORDER BY Z_PK").map { "\($0[0] as String)=\($0[1] as Int64)" }
        }
        #expect(visits == ["mon=1", "mon=2", "tue=3", "thu=5"])
    }

    /// Thousands of postcodes, so rows fill several batches: a night removes some, adds some between
    /// their neighbours, changes some and moves one row from the end to the top. The loader numbers
    /// the rows itself (no renumbering phase), survivors keep their numbers, new rows are numbered
    /// above `Z_MAX` in file order, and the digest hashed while loading is the one read back.
    @Test(arguments: [false, true])
    func theLoaderNumbersAKeyedTableItself(movesARow: Bool) throws {
        let codes = (0..<9000).map { String(format: "AB%d %dXY", $0 / 100, $0 % 100) }
        func postcodes(_ list: [String], ward: (String) -> String) -> String {
            "postcode,county_code,ward\n" + list.map { "\($0),KEN,\(ward($0))\n" }.joined()
        }
        let first = (Self.first.counties, postcodes(codes) { _ in "Park" }, Self.first.visits)
        var next = codes.enumerated().filter { $0.offset % 500 != 7 }.map(\.element)
        for place in stride(from: 6000, to: 100, by: -1500) { next.insert("ZZ\(place) 1AA", at: place) }
        if movesARow { next.insert(next.removeLast(), at: 0) }
        let second = (Self.first.counties, postcodes(next) { $0.hasSuffix("3XY") ? "Lake" : "Park" }, Self.first.visits)
        let one = try build("1", first, layout: .coreData)
        let built = try buildStore("2", second, layout: .coreData, base: one)
        #expect(!built.timings.phases.contains { $0.name == "keys after the base Postcode" }, "numbered as the rows were read")
        let (before, after) = (
            try numbers(one, table: "ZPOSTCODE", key: "ZPOSTCODE"), try numbers(built.storePath, table: "ZPOSTCODE", key: "ZPOSTCODE")
        )
        for code in next where before[code] != nil { #expect(after[code] == before[code], "\(code) kept its number") }
        let added = next.filter { before[$0] == nil }
        #expect(added.map { after[$0] } == added.indices.map { Int64(9001 + $0) }, "new rows above Z_MAX, in file order")
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))
        try raw(built.storePath) { db in
            let (count, zmax) = (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPOSTCODE"),
                try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Postcode'")
            )
            #expect(count == next.count && zmax == 9000 + Int64(added.count))
        }
    }

    /// A new row whose field is longer than the digest's buffer (64 KiB) is hashed whole while it is
    /// held back with the other new rows: the digest stated is the one read back.
    @Test func aLongFieldInANewRowIsHashedWhole() throws {
        let one = try build("1", Self.first, layout: .coreData)
        let long = String(repeating: "w", count: 70_000)
        let built = try buildStore(
            "2", (Self.first.counties, Self.first.postcodes + "ZZ1 1AA,KEN,\(long)\n", Self.first.visits), layout: .coreData, base: one)
        #expect(built.metadata.contentDigest == (try storedDigest(built.storePath)))
    }

    /// Last night's output folder as the base of tonight's build into the same folder: the build
    /// replaces the store and removes the deltas there, so it copies them aside first — the one-hop
    /// delta starts from last night's release, and the deltas its manifest listed are composed.
    @Test(arguments: ["places.sqlite", "manifest.json"])
    func aBaseInTheOutputFolderIsCopiedAside(_ file: String) throws {
        let output = directory.path("out-night")
        for (version, files) in [(Int64(1), Self.first), (2, Self.second)] {
            let built = try buildStore(
                "\(version)", files, layout: .coreData, base: version == 1 ? nil : output + "/" + file, output: output, dataVersion: version
            )
            _ = try Packager().package(built)
        }
        let third = (Self.second.counties, Self.second.postcodes + "ZZ1 1AA,KEN,New\n", Self.second.visits)
        let built = try buildStore("3", third, layout: .coreData, base: output + "/" + file, output: output, dataVersion: 3)
        let packaged = try Packager().package(built)
        // From the store, only the one-hop delta; from the manifest, the one it lists composed too.
        #expect(packaged.deltas.map(\.fromDataVersion) == (file == "manifest.json" ? [2, 1] : [2]), "\(packaged.omittedDeltas)")
        #expect(packaged.omittedDeltas.isEmpty)
    }

    /// The nightly job builds into the same folder every night: when the store there is the channel's
    /// current release byte for byte, it is the base, and the release is not downloaded again. Here
    /// the channel's artifact is gone, so a build that fetched it would fail; one whose output store
    /// is another build's fetches, and does fail.
    @Test func lastNightsStoreInTheOutputFolderIsTheBase() throws {
        let output = directory.path("out-job")
        let channelRoot = directory.path("dist")
        var publisher = Publisher()
        publisher.allowUnsigned = true
        let first = try buildStore("1", Self.first, layout: .coreData, output: output, dataVersion: 1)
        _ = try Packager().package(first)
        let before = try numbers(first.storePath, table: "ZPOSTCODE", key: "ZPOSTCODE")
        let published = try publisher.publish(output, to: channelRoot)
        for artifact in try FileManager.default.contentsOfDirectory(atPath: published.channel + "artifacts") {
            try FileManager.default.removeItem(atPath: published.channel + "artifacts/" + artifact)
        }
        let second = try buildStore("2", Self.second, layout: .coreData, base: published.channel, output: output, dataVersion: 2)
        let after = try numbers(second.storePath, table: "ZPOSTCODE", key: "ZPOSTCODE")
        #expect(after["GU1 1AA"] == before["GU1 1AA"] && after["GU1 1AA"] != nil)
        #expect(!second.timings.phases.contains { $0.name == "keys after the base Postcode" })
        // Another store in the output folder than the channel's: the release is fetched, and its artifact is gone.
        #expect(throws: IngestError.self) {
            try buildStore("3", Self.first, layout: .coreData, base: published.channel, output: output, dataVersion: 3)
        }
    }

    @Test func thePlainLayoutKeepsNumberedTablesToo() throws {
        let one = try build("1", Self.first, layout: .plain)
        let two = try build("2", Self.second, layout: .plain, base: one)
        // Postcode is keyed by its postcode there (no number); County has a number, kept.
        #expect(try numbers(two, table: "County", key: "code") == ["KEN": 1, "SUR": 2])
        let marks = try StoreMetadata.read(at: URL(fileURLWithPath: two))["keyHighWater"]
        #expect(marks == .object(["County": .integer(3), "Visit": .integer(5)]))
        // A third release adds a county: it gets 4, above every number issued, not 3.
        let three = try build(
            "3", (Self.first.counties.replacingOccurrences(of: "ESX,Essex", with: "DOR,Dorset"), Self.second.postcodes, Self.second.visits),
            layout: .plain, base: two)
        #expect(try numbers(three, table: "County", key: "code") == ["KEN": 1, "SUR": 2, "DOR": 4])
    }

    /// The same base and input give the same bytes; the base may be a store, an artifact, a manifest or a channel.
    @Test func sameBaseAndInputGiveTheSameBytes() throws {
        let one = try build("1", Self.first, layout: .coreData)
        let out = directory.path("out-1")
        let packaged = try Packager().package(store: one)
        let channel = directory.path("dist")
        var publisher = Publisher()
        publisher.allowUnsigned = true
        let published = try publisher.publish(out, to: channel)
        var digests: Set<String> = []
        for (index, base) in [one, packaged.artifactPath, packaged.manifestPath, published.channel].enumerated() {
            let two = try build("2-\(index)", Self.second, layout: .coreData, base: base)
            digests.insert(try FileDigest(of: two).sha256)
        }
        #expect(digests.count == 1, "every form of the base gives the same store")
    }

    @Test func aBaseOfAnotherChannelOrBrokenIsRefused() throws {
        let one = try build("1", Self.first, layout: .coreData)
        let other = #expect(throws: IngestError.self) { try build("2", Self.second, layout: .coreData, base: one, dataset: "towns") }
        #expect(other?.message.contains("is of dataset places, not towns") == true && other?.message.contains("--no-base") == true)
        let layout = #expect(throws: IngestError.self) { try build("3", Self.second, layout: .plain, base: one) }
        #expect(layout?.message.contains("coredata layout") == true)
        // Another seed model version: a changed attribute changes Postcode's hash.
        directory.write(
            "model-2.json",
            Self.modelJSON.replacingOccurrences(of: "\"ward\", \"type\": \"String\"", with: "\"ward\", \"type\": \"Integer 16\""))
        var options = BuildOptions(files: [directory.path("in-1/postcodes.csv")])
        options.model = directory.path("model-2.json")
        options.outputDirectory = directory.path("out-4")
        options.dataset = "places"
        options.base = one
        directory.write("in-1/postcodes.csv", "postcode,county_code,ward\nCT1 1AA,KEN,1\n")
        let (request, _) = try options.resolve(project: nil)
        let model = #expect(throws: IngestError.self) { try SeedBuilder().build(request) }
        #expect(model?.message.contains("another seed model version (Postcode differ)") == true, "\(String(describing: model))")
        // A damaged base fails quick_check (or is not SQLite at all).
        let damaged = directory.write("damaged.sqlite", "SQLite format 3\0" + String(repeating: "x", count: 5000))
        #expect(throws: (any Error).self) { try build("5", Self.second, layout: .coreData, base: damaged) }
        #expect(throws: IngestError.self) { try build("6", Self.second, layout: .coreData, base: directory.path("missing.sqlite")) }
    }
}
