import Foundation
import SeedModel
import SeedStore

/// Everything a build needs, resolved: the model, the configuration, which file feeds which entity.
public struct BuildRequest: Sendable {
    /// The seed model.
    public var model: Model
    /// The app's user models: the store is stamped with the hashes of the merged model (seed model ∪
    /// user models), which is what the app's coordinator compares, so it opens with no migration.
    public var userModels: [Model]
    public var configuration: String
    /// Entity name → CSV path.
    public var sources: [String: String]
    /// `Entity.relationship` → link file feeding that many-to-many relationship (``LinkTarget``).
    public var links: [String: String] = [:]
    public var mapping: MappingFile
    public var outputDirectory: String
    public var dataset: String
    public var maxRejects: Int
    /// Monotonic release number; default from the build time as `yyyyMMddHHmm`.
    public var dataVersion: Int64?
    /// From `SOURCE_DATE_EPOCH` when set, so builds are reproducible.
    public var buildTime: Date
    /// A CSV record longer than this is a rejected row, never held whole in memory.
    public var maxRecordBytes = CSVReader.defaultMaxRecordBytes
    /// The store's layout: Core Data's (which a Core Data app adds to its coordinator) or plain.
    public var layout: StoreLayout = .coreData
    /// The release this build follows (a store, artifact, manifest or channel): objects it has keep
    /// their numbers (``StableKeys``). Nil numbers every object afresh.
    public var base: String?
    /// The keys the base's manifest must be signed by (``BaseTrust``).
    public var baseTrust = BaseTrust()
    /// The base, opened and checked, while the build runs.
    var baseRelease: BaseRelease?
    /// The deltas written for the release when the build follows a base (``DeltaStage``).
    public var deltas = DeltaPolicy()
    /// How much of each entity a build following a base may remove or change before it is held
    /// (``ChangeBudgetExceeded``).
    public var changeBudget = ChangeBudget()
    /// Lets this build through whatever its changes against the base (`--accept-change`).
    public var acceptChange = false

    public init(
        model: Model, userModels: [Model] = [], configuration: String, sources: [String: String],
        mapping: MappingFile = MappingFile(),
        outputDirectory: String, dataset: String, maxRejects: Int = 0, dataVersion: Int64? = nil,
        buildTime: Date = BuildRequest.defaultBuildTime()
    ) {
        self.model = model
        self.userModels = userModels
        self.configuration = configuration
        self.sources = sources
        self.mapping = mapping
        self.outputDirectory = outputDirectory
        self.dataset = dataset
        self.maxRejects = maxRejects
        self.dataVersion = dataVersion
        self.buildTime = buildTime
    }

    /// The model the store is stamped for: the seed model merged with the user models, if any.
    public func stampModel() throws(ModelError) -> Model {
        userModels.isEmpty ? model : try Model.merged([model] + userModels)
    }

    /// `SOURCE_DATE_EPOCH` (seconds since 1970) when set and valid, else now, to the second.
    public static func defaultBuildTime(environment: [String: String] = ProcessInfo.processInfo.environment) -> Date {
        if let text = environment["SOURCE_DATE_EPOCH"], let seconds = Int64(text) {
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        return Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// The data version a build stamps: the given one, else the build time as `yyyyMMddHHmm` (UTC).
    public var effectiveDataVersion: Int64 {
        if let dataVersion { return dataVersion }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: buildTime)
        return Int64(c.year! * 100_000_000 + c.month! * 1_000_000 + c.day! * 10_000 + c.hour! * 100 + c.minute!)
    }

    /// `<out>/<dataset>.sqlite`, relative when the output folder was given relative.
    public var storePath: String { outputFile("\(dataset).sqlite") }

    public var rejectsPath: String { outputFile("\(dataset).rejects.csv") }

    public func outputFile(_ name: String) -> String {
        (outputDirectory as NSString).appendingPathComponent(name)
    }
}

/// What a build produced: the store, its counts, and the rows it rejected.
public struct BuiltStore: Sendable {
    public struct Source: Sendable, Equatable {
        public var entity: String
        public var file: String
        public var bytes: Int
        public var sha256: String
        public var rowsRead: Int
        public var rowsLoaded: Int
        public var rowsRejected: Int
    }

    public var storePath: String
    /// Set when rows were rejected.
    public var rejectsPath: String?
    public var rowCounts: [String: Int]
    public var sources: [Source]
    public var rejected: Int
    /// The first rejected rows, for the terminal; the rejects file has them all.
    public var shownRejects: [RowError]
    /// Notes on the inputs: columns skipped on purpose.
    public var warnings: [String]
    public var metadata: StoreMetadata
    /// Seconds per phase.
    public var timings: PhaseTimings
    /// The deltas from earlier releases, when the build followed a base, until the packager lists them in the manifest.
    public var deltas: PendingDeltas? = nil
    /// Each entity's changes against the base, when the build followed one.
    public var changes: ChangeReport? = nil
    /// The release's set digest (``SetDigest``'s printed form), signed in the manifest.
    public var setDigest: String? = nil
    /// The self-referential many-to-many pairs of a store in Core Data's layout, whose join-table name
    /// no known rule fixes: each table has a view under the pair's other name (`docs/store-format.md`).
    public var uncertainJoinTables: [UncertainJoinTable] = []

    /// A self-referential many-to-many's join table, readable under both names Core Data may expect.
    public struct UncertainJoinTable: Sendable, Equatable {
        /// `Entity.relationship` of each side.
        public var relationships: [String]
        /// The table holding the rows, named after the relationship whose name sorts last.
        public var table: String
        /// The view reading the same rows under the other name.
        public var view: String
    }
}

/// Progress of a build: each phase as it starts, and while reading, about every 65,536 rows.
public struct BuildProgress: Sendable {
    /// `reading` (an entity's file), `indexing`, `digest`, `analyzing`, `compacting`, `syncing`.
    public var phase: String
    /// The entity being read; empty in the other phases.
    public var entity: String
    public var file: String
    public var rowsRead: Int
    public var bytesRead: Int
    public var totalBytes: Int

    public init(phase: String = "reading", entity: String, file: String, rowsRead: Int, bytesRead: Int, totalBytes: Int) {
        self.phase = phase
        self.entity = entity
        self.file = file
        self.rowsRead = rowsRead
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
    }

    /// A phase starting: `load County` → reading County, `indexes` → indexing, and so on.
    init(startingPhase name: String) {
        let entity = name.hasPrefix("load ") ? String(name.dropFirst(5)) : ""
        let phases = ["indexes": "indexing", "analyze": "analyzing", "compact": "compacting", "sync and rename": "syncing"]
        self.init(
            phase: entity.isEmpty ? phases[name] ?? name : "reading", entity: entity, file: "", rowsRead: 0, bytesRead: 0, totalBytes: 0)
    }
}
