import Benchmark
import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore

/// Throughput and memory of the hot paths: the CSV scan, the whole build, and compression.
/// Inputs are generated once per run, deterministically, in a temporary folder.
let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .peakMemoryResident, .mallocCountTotal]
    let rows = 200_000
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-benchmarks").path
    let inputs = BenchmarkInputs(folder: folder, rows: rows)

    Benchmark("CSV scan, \(rows) postcode rows", configuration: .init(metrics: metrics, maxIterations: 10)) { _ in
        let reader = try CSVReader(path: inputs.postcodes)
        var fields = 0
        while let record = try reader.next() {
            for index in 0..<record.count { fields += record.withField(index) { $0.count } }
        }
        blackHole(fields)
    }

    Benchmark("Build, \(rows) postcode rows", configuration: .init(metrics: metrics, maxIterations: 5)) { _ in
        var options = BuildOptions(files: [inputs.postcodes])
        options.model = inputs.model
        options.outputDirectory = folder + "/out"
        let (request, _) = try options.resolve(project: nil)
        blackHole(try SeedBuilder().build(request))
    }

    Benchmark("Parallel gzip of the built store", configuration: .init(metrics: metrics, maxIterations: 5)) { _ in
        blackHole(try ParallelGzip().compress(inputs.store, to: folder + "/store.sqlite.gz"))
    }

    // The runtime against its baseline, measured in the same run: one district's 6,760 postcodes with
    // their latitudes, through a coordinator and context, and through GRDB rows with hand-written SQL.
    // An app loads its model once at launch; opening the store is measured, as the baseline opens it too.
    let model = try! ModelLoader.load(inputs.model)
    Benchmark("Runtime fetch: postcode BEGINSWITH 'AB05', 6,760 objects", configuration: .init(metrics: metrics, maxIterations: 20)) { _ in
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: inputs.store), isReadOnly: true))
        let context = ObjectContext(coordinator: coordinator)
        let request = FetchRequest(
            entity: "Postcode", predicate: try FetchPredicate("postcode BEGINSWITH 'AB05'"),
            sortDescriptors: [FetchSortDescriptor("postcode")])
        var sum = 0.0
        for object in try context.fetch(request) { sum += try object.double("latitude") ?? 0 }
        blackHole(sum)
    }

    let openCoordinator = StoreCoordinator(model: model)
    _ = try! openCoordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: inputs.store), isReadOnly: true))
    let runtime = RuntimeReads(coordinator: openCoordinator, store: inputs.store)
    Benchmark("Runtime fetch on an open store, 6,760 objects", configuration: .init(metrics: metrics, maxIterations: 20)) { _ in
        blackHole(try runtime.objects())
    }

    Benchmark("Runtime typed records on an open store, 6,760 records", configuration: .init(metrics: metrics, maxIterations: 20)) { _ in
        blackHole(try runtime.records())
    }

    Benchmark("Runtime store-level fetch on an open store, 6,760 rows", configuration: .init(metrics: metrics, maxIterations: 20)) { _ in
        let store = openCoordinator.stores[0]
        let fetch = StoreFetch(
            entity: "Postcode", predicate: try FetchPredicate("postcode BEGINSWITH 'AB05'"),
            sortDescriptors: [FetchSortDescriptor("postcode")])
        var sum = 0.0
        for row in try store.fetch(fetch) { sum += row["latitude"]?.doubleValue ?? 0 }
        blackHole(sum)
    }

    Benchmark("Runtime: add the seed store read-only", configuration: .init(metrics: metrics, maxIterations: 20)) { _ in
        let coordinator = StoreCoordinator(model: model)
        blackHole(try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: inputs.store), isReadOnly: true)))
    }

    Benchmark("Baseline: the same rows through GRDB and hand-written SQL", configuration: .init(metrics: metrics, maxIterations: 20)) { _ in
        blackHole(try runtime.baseline())
    }

    // The ratios themselves, from the baseline, the objects and the records timed back to back in
    // every iteration (in a rotating order), in CPU time of the thread: on a shared machine, a
    // benchmark's wall-clock time can double between benchmarks run a few seconds apart, which the
    // ratio of two medians then carries.
    let objectsRatio = BenchmarkMetric.custom("objects ÷ baseline (%)")
    let recordsRatio = BenchmarkMetric.custom("records ÷ baseline (%)")
    Benchmark(
        "Runtime against the baseline, timed back to back",
        configuration: .init(metrics: [objectsRatio, recordsRatio], maxDuration: .seconds(20), maxIterations: 60)
    ) { benchmark in
        for iteration in benchmark.scaledIterations {
            var times: [Double] = [0, 0, 0]
            for step in 0..<3 {
                let which = (step + iteration) % 3
                let started = threadCPUTime()
                switch which {
                case 0: blackHole(try runtime.baseline())
                case 1: blackHole(try runtime.objects())
                default: blackHole(try runtime.records())
                }
                times[which] = threadCPUTime() - started
            }
            benchmark.measurement(objectsRatio, Int((100 * times[1] / times[0]).rounded()))
            benchmark.measurement(recordsRatio, Int((100 * times[2] / times[0]).rounded()))
        }
    }
}

/// CPU time the calling thread has used, in seconds: time it was not running (preempted by
/// another process, or its virtual CPU by the host) is left out.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The runtime's reads and their baseline: one district's 6,760 postcodes, every attribute read.
struct RuntimeReads: Sendable {
    let coordinator: StoreCoordinator
    let store: String

    /// Objects through a context on the open coordinator, their latitudes summed.
    func objects() throws -> Double {
        let context = ObjectContext(coordinator: coordinator)
        let request = FetchRequest(
            entity: "Postcode", predicate: try FetchPredicate("postcode BEGINSWITH 'AB05'"),
            sortDescriptors: [FetchSortDescriptor("postcode")])
        var sum = 0.0
        for object in try context.fetch(request) { sum += try object.double("latitude") ?? 0 }
        return sum
    }

    /// The same rows as typed records.
    func records() throws -> Double {
        let context = ObjectContext(coordinator: coordinator)
        let records = try context.fetch(
            PostcodeRecord.self, entity: "Postcode", where: try FetchPredicate("postcode BEGINSWITH 'AB05'"),
            sortedBy: [FetchSortDescriptor("postcode")])
        return records.reduce(0.0) { $0 + ($1.latitude ?? 0) }
    }

    /// The same rows through GRDB and hand-written SQL.
    func baseline() throws -> Double {
        // Read-only and immutable, as the runtime opens a seed.
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: "file:\(store)?mode=ro&immutable=1", configuration: configuration)
        return try queue.read { db in
            var sum = 0.0
            // The store is in Core Data's layout (the build's default): the key, then every attribute and the to-one.
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT Z_PK, ZPOSTCODE, ZDISTRICT, ZLATITUDE, ZLONGITUDE, ZINTRODUCED, ZCOUNTY FROM ZPOSTCODE WHERE ZPOSTCODE >= 'AB05' AND ZPOSTCODE < 'AB06' ORDER BY ZPOSTCODE"
            )
            // Every column of every row is read, as the runtime reads each object's values.
            while let row = try rows.next() {
                let values = Array(row.databaseValues)
                sum += Double.fromDatabaseValue(values[3]) ?? 0
            }
            return sum
        }
    }
}

/// A postcode as an app would declare it: every attribute, decoded to its Swift type.
struct PostcodeRecord: Decodable {
    var postcode: String
    var district: String?
    var latitude: Double?
    var longitude: Double?
    var introduced: Date?
}

/// Writes the benchmark's CSVs and model, and builds a store to compress.
struct BenchmarkInputs: Sendable {
    let postcodes: String
    let model: String
    let store: String

    init(folder: String, rows: Int) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        postcodes = folder + "/postcodes.csv"
        model = folder + "/model.json"
        store = folder + "/out/postcodes.sqlite"
        let counties = (0..<150).map { "E\(10_000_000 + $0),County \($0),England" }
        try! ("code,name,country\n" + counties.joined(separator: "\n") + "\n").write(
            toFile: folder + "/counties.csv", atomically: true, encoding: .utf8)
        var generator = SplitMix(seed: 1)
        var text = "postcode,county_code,district,latitude,longitude,introduced\n"
        for index in 0..<rows {
            // Unique and in key order, like the real postcode directory: 6,760 units per district.
            let unit = index % 6_760
            let postcode = String(format: "AB%02d %d%c%c", index / 6_760, unit / 676, 65 + (unit / 26) % 26, 65 + unit % 26)
            text += "\(postcode),E\(10_000_000 + Int(generator.next() % 150)),District \(generator.next() % 400),"
            text += String(
                format: "%.6f,%.6f,", 50 + Double(generator.next() % 1_000_000) / 100_000,
                -5 + Double(generator.next() % 1_000_000) / 100_000)
            text += "20\(10 + generator.next() % 15)-0\(1 + generator.next() % 9)-1\(generator.next() % 9)\n"
        }
        try! text.write(toFile: postcodes, atomically: true, encoding: .utf8)
        try! #"""
        {"name": "Bench", "entities": [
          {"name": "County", "attributes": [{"name": "code", "type": "String", "optional": false}, {"name": "name", "type": "String"}, {"name": "country", "type": "String"}],
           "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "county", "toMany": true}], "uniquenessConstraints": [["code"]]},
          {"name": "Postcode", "attributes": [{"name": "postcode", "type": "String", "optional": false}, {"name": "district", "type": "String"},
            {"name": "latitude", "type": "Double"}, {"name": "longitude", "type": "Double"}, {"name": "introduced", "type": "Date"}],
           "relationships": [{"name": "county", "destination": "County", "inverse": "postcodes"}], "uniquenessConstraints": [["postcode"]]}]}
        """#.write(toFile: model, atomically: true, encoding: .utf8)
        var options = BuildOptions(files: [postcodes])
        options.model = model
        options.outputDirectory = folder + "/out"
        let (request, _) = try! options.resolve(project: nil)
        _ = try! SeedBuilder().build(request)
    }
}

/// A small deterministic generator, so every run measures the same input.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
