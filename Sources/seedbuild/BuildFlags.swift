import ArgumentParser
import Foundation
import SeedPipeline
import SeedStore

/// The flags every building command shares (`seedbuild build` and the default command).
struct BuildFlags: ParsableArguments {
    @Argument(help: "CSV files: the postcodes file first; sibling files feed the other entities (counties.csv → County).")
    var files: [String] = []

    @Option(
        help:
            "The model: an .xcdatamodeld bundle, one .xcdatamodel version, a JSON model, or a compiled .momd or .mom (default: seedbuild.json's \"model\")."
    )
    var model: String?

    @Option(
        name: .customLong("user-model"),
        help:
            "The app's user model, merged with the seed model to check cross-store fetched properties (repeatable; default: seedbuild.json's \"userModels\")."
    )
    var userModels: [String] = []

    @Option(help: "The configuration the seed store holds (default: the model's only named configuration, else Default).")
    var configuration: String?

    @Option(help: "Output folder (default: build/seed).")
    var out: String?

    @Option(help: "Dataset name, used for the output file names (default: the first CSV's file name stem).")
    var dataset: String?

    @Option(name: .customLong("max-rejects"), help: "How many rows may be rejected before the build fails.")
    var maxRejects: Int = 0

    @Option(
        name: .customLong("source"),
        help: ArgumentHelp("Which CSV feeds an entity, overriding file-name matching (repeatable).", valueName: "Entity=path"))
    var sources: [String] = []

    @Option(help: "A JSON file renaming CSV columns to properties: {\"Postcode\": {\"pcds\": \"postcode\"}}.")
    var mapping: String?

    @Option(
        name: .customLong("ignore-column"),
        help: ArgumentHelp(
            "A CSV column to skip on purpose (repeatable); any other column that matches no property fails the build.", valueName: "name"))
    var ignoredColumns: [String] = []

    @Option(
        name: .customLong("max-record-size"),
        help: ArgumentHelp(
            "The longest CSV record accepted, in bytes (K, M, G suffixes; default 16M); a longer one is a rejected row.", valueName: "size")
    )
    var maxRecordSize: String?

    @Option(
        help: ArgumentHelp(
            "The store's layout: coredata (Core Data's own, which a Core Data app adds to its coordinator; the default) or plain (seedbuild's compact one).",
            valueName: "coredata|plain"))
    var format: StoreLayout?

    @Option(
        name: .customLong("data-version"),
        help: "The release's data version, a whole number that must grow (default: build time as yyyyMMddHHmm).")
    var dataVersion: Int64?

    @Option(name: .customLong("compression-level"), help: "gzip level for the artifact, 1 (fastest) to 9 (smallest; default 6).")
    var compressionLevel: Int32?

    @Option(
        name: .customLong("expires-in"),
        help: ArgumentHelp(
            "Days until the manifest expires, counted from when it is written (default 14); apps refuse an expired release.",
            valueName: "days"))
    var expiresIn: Int?

    @Option(
        name: .customLong("sign-key"),
        help:
            "An Ed25519 private key (PEM, from seedbuild keygen) to sign the manifest with: a file, or env:NAME for a variable holding it (default: $SEEDBUILD_SIGN_KEY when set)."
    )
    var signKey: String?

    @Option(
        help:
            "Where the default command publishes a verified build: a folder, file://… or http(s)://… (default: seedbuild.json's \"publish\", else dist)."
    )
    var publish: String?

    @Option(
        help: ArgumentHelp(
            "The release this build follows, so its objects keep their numbers (Z_PK) and the store its UUID: a .sqlite, a .sqlite.gz, a manifest.json, or a channel folder or URL (default for the default command: the channel it publishes to).",
            valueName: "path|url"))
    var base: String?

    @Option(
        name: .customLong("trusted-key"),
        help: ArgumentHelp(
            "A public key (PEM) the base release may be signed by besides the signing key's own, such as the previous key while keys are rotated (repeatable; default: seedbuild.json's \"trustedKeys\").",
            valueName: "path"))
    var trustedKeys: [String] = []

    @Flag(
        name: .customLong("allow-unsigned-base"),
        help:
            "Follow an unsigned base although this build signs: once, for the first signed release of a channel that was unsigned until now."
    )
    var allowUnsignedBase = false

    @Flag(name: .customLong("no-base"), help: "Number every object afresh, following no earlier release (a new channel).")
    var noBase = false

    @Option(
        name: .customLong("deltas"),
        help: ArgumentHelp(
            "Publish with the release a delta from each of the last K releases (the base and those its manifest has deltas from), so apps there download only the changed rows; 0 for none (default: seedbuild.json's \"deltas\", else 7).",
            valueName: "K"))
    var deltas: Int?

    @Option(
        name: .customLong("delta-max-share"),
        help: ArgumentHelp(
            "Leave out a delta unless it is smaller than this share of the artifact: a fraction such as 0.5 or a percentage such as 50% (default: seedbuild.json's \"deltaMaxShare\", else 0.5).",
            valueName: "share"))
    var deltaMaxShare: String?

    @Flag(
        name: .customLong("accept-change"),
        help:
            "Let this build through even when its changes against the base exceed the change budget (seedbuild.json's \"changeBudget\"; by default more than 5% of an entity's rows removed, more than 25% changed, or an entity emptied)."
    )
    var acceptChange = false

    @Flag(
        name: .customLong("allow-unsigned"),
        help: "The default command publishes an unsigned manifest even where the current release is signed.")
    var allowUnsigned = false

    @Flag(
        name: .customLong("all-versions"),
        help: "The default command verifies under every version of the model bundle, not only the current one.")
    var allVersions = false

    @Flag(name: .customLong("no-publish"), help: "The default command stops after verifying.")
    var noPublish = false

    @Flag(name: .customLong("no-compress"), help: "Build the store only: no .sqlite.gz and no manifest.")
    var noCompress = false

    @Flag(help: "When another seedbuild is writing to the output folder, wait for it (default: exit 75 naming its process).")
    var wait = false

    @Option(
        help: ArgumentHelp(
            "Write the run's figures to this file in Prometheus's text format (for node-exporter's textfile collector), also when the run fails.",
            valueName: "file"))
    var metrics: String?

    @Flag(help: "Print a JSON summary on stdout and no progress.")
    var json = false

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if maxRejects < 0 { throw ValidationError("--max-rejects must be 0 or more") }
        for pair in sources where !pair.contains("=") {
            throw ValidationError("--source takes Entity=path, got \"\(pair)\"")
        }
        if let maxRecordSize, Self.bytes(maxRecordSize) == nil {
            throw ValidationError("--max-record-size takes a size in bytes such as 65536, 512K or 16M, at least 64")
        }
        if let dataVersion, dataVersion < 0 { throw ValidationError("--data-version must be 0 or more") }
        if let compressionLevel, !(1...9).contains(compressionLevel) { throw ValidationError("--compression-level must be 1 to 9") }
        if let expiresIn, expiresIn < 1 { throw ValidationError("--expires-in must be 1 day or more") }
        if let deltas, deltas < 0 { throw ValidationError("--deltas must be 0 (none) or more") }
        if let deltaMaxShare, Self.share(deltaMaxShare) == nil {
            throw ValidationError(
                "--delta-max-share takes a fraction more than 0 and at most 1 (0.5) or a percentage (50%), got \"\(deltaMaxShare)\"")
        }
        if json && quiet { throw ValidationError("--json and --quiet exclude each other") }
        if noCompress {
            let packaging = [
                ("--compression-level", compressionLevel != nil), ("--expires-in", expiresIn != nil), ("--sign-key", signKey != nil),
                ("--deltas", deltas != nil), ("--delta-max-share", deltaMaxShare != nil),
            ]
            if let (name, _) = packaging.first(where: \.1) {
                throw ValidationError("\(name) applies to the artifact and manifest, which --no-compress does not write")
            }
        }
    }

    private func validateBase() throws {
        if base != nil && noBase { throw ValidationError("--base and --no-base exclude each other; give one") }
        if noBase,
            let name = deltaFlag
                ?? (!trustedKeys.isEmpty
                    ? "--trusted-key" : allowUnsignedBase ? "--allow-unsigned-base" : acceptChange ? "--accept-change" : nil)
        {
            throw ValidationError("\(name) applies to a build following a base, and --no-base follows none")
        }
    }

    /// The first delta option given, if any.
    private var deltaFlag: String? {
        deltas != nil ? "--deltas" : deltaMaxShare != nil ? "--delta-max-share" : nil
    }

    /// Refuses the options only the default command uses (publishing), for `seedbuild build`.
    func validateWithoutPublishing() throws {
        try validateBase()
        if base == nil,
            let name = deltaFlag
                ?? (!trustedKeys.isEmpty
                    ? "--trusted-key" : allowUnsignedBase ? "--allow-unsigned-base" : acceptChange ? "--accept-change" : nil)
        {
            throw ValidationError("\(name) applies to a build following a base: give --base (seedbuild build follows none by default)")
        }
        let publishing = [
            ("--publish", publish != nil), ("--no-publish", noPublish), ("--allow-unsigned", allowUnsigned),
            ("--all-versions", allVersions),
        ]
        if let (name, _) = publishing.first(where: \.1) {
            throw ValidationError(
                "\(name) applies to the default command (seedbuild [run]), which verifies and publishes; seedbuild build does neither (use seedbuild verify or publish)"
            )
        }
    }

    /// Refuses publishing options when the default command will not publish.
    func validatePublishing() throws {
        try validateBase()
        guard noPublish || noCompress else { return }
        let publishing = [("--publish", publish != nil), ("--allow-unsigned", allowUnsigned)]
        if let (name, _) = publishing.first(where: \.1) {
            throw ValidationError("\(name) has no effect with \(noPublish ? "--no-publish" : "--no-compress"), which publishes nothing")
        }
    }

    /// The options as the pipeline takes them.
    var options: BuildOptions {
        var options = BuildOptions(files: files)
        options.model = model
        options.userModels = userModels.isEmpty ? nil : userModels
        options.configuration = configuration
        options.outputDirectory = out
        options.dataset = dataset
        options.maxRejects = maxRejects
        options.mapping = mapping
        options.dataVersion = dataVersion
        options.format = format
        options.ignoredColumns = ignoredColumns
        options.base = noBase ? nil : base
        options.deltaCount = deltas
        options.deltaMaxShare = deltaMaxShare.flatMap(Self.share)
        options.trustedKeys = trustedKeys.isEmpty ? nil : trustedKeys
        options.allowsUnsignedBase = allowUnsignedBase
        options.acceptChange = acceptChange
        if let size = maxRecordSize.flatMap(Self.bytes) { options.maxRecordBytes = size }
        for pair in sources {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            options.sources[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return options
    }

    /// `65536`, `512K`, `16M`, `1G` → bytes (at least 64).
    static func bytes(_ text: String) -> Int? {
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        let unit = text.last.flatMap { multipliers[Character($0.uppercased())] }
        guard let number = Int(unit == nil ? text : String(text.dropLast())), number > 0 else { return nil }
        let (value, overflow) = number.multipliedReportingOverflow(by: unit ?? 1)
        return overflow || value < 64 ? nil : value
    }

    /// `0.5` or `50%` → 0.5; nil unless more than 0 and at most 1.
    static func share(_ text: String) -> Double? {
        let percent = text.hasSuffix("%")
        guard let number = Double(percent ? String(text.dropLast()) : text), number.isFinite else { return nil }
        let share = percent ? number / 100 : number
        return share > 0 && share <= 1 ? share : nil
    }

    var effectiveCompressionLevel: Int32 { compressionLevel ?? 6 }
    var effectiveExpiresIn: Int { expiresIn ?? 14 }

    /// Runs a phase with its name on the status line (on a terminal only), cleared before anything is printed.
    func showingStatus<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        let display = showsProgress ? ProgressDisplay() : nil
        display?.status(label)
        defer { display?.finish() }
        return try body()
    }

    /// Whether to draw progress: only on a terminal, and never with --json or --quiet.
    var showsProgress: Bool {
        !json && !quiet && isatty(STDERR_FILENO) == 1
    }
}

extension StoreLayout: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }

    public static var allValueStrings: [String] { allCases.map(\.name) }
}
