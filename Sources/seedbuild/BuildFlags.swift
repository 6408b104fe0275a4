import ArgumentParser
import Foundation
import SeedPipeline

/// The flags every building command shares (`seedbuild build` and the default command).
struct BuildFlags: ParsableArguments {
    @Argument(help: "CSV files: the postcodes file first; sibling files feed the other entities (counties.csv → County).")
    var files: [String] = []

    @Option(help: "The model: an .xcdatamodeld bundle, one .xcdatamodel version, or a JSON model (default: seedbuild.json's \"model\").")
    var model: String?

    @Option(name: .customLong("user-model"), help: "The app's user model, merged with the seed model to check cross-store fetched properties (repeatable; default: seedbuild.json's \"userModels\").")
    var userModels: [String] = []

    @Option(help: "The configuration the seed store holds (default: the model's only named configuration, else Default).")
    var configuration: String?

    @Option(help: "Output folder (default: build/seed).")
    var out: String?

    @Option(help: "Dataset name, used for the output file names (default: the first CSV's file name stem).")
    var dataset: String?

    @Option(name: .customLong("max-rejects"), help: "How many rows may be rejected before the build fails.")
    var maxRejects: Int = 0

    @Option(name: .customLong("source"), help: ArgumentHelp("Which CSV feeds an entity, overriding file-name matching (repeatable).", valueName: "Entity=path"))
    var sources: [String] = []

    @Option(help: "A JSON file renaming CSV columns to properties: {\"Postcode\": {\"pcds\": \"postcode\"}}.")
    var mapping: String?

    @Option(name: .customLong("ignore-column"), help: ArgumentHelp("A CSV column to skip on purpose (repeatable); any other column that matches no property fails the build.", valueName: "name"))
    var ignoredColumns: [String] = []

    @Option(name: .customLong("data-version"), help: "The release's data version, a whole number that must grow (default: build time as yyyyMMddHHmm).")
    var dataVersion: Int64?

    @Option(name: .customLong("compression-level"), help: "gzip level for the artifact, 1 (fastest) to 9 (smallest).")
    var compressionLevel: Int32 = 6

    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Days until the manifest expires; apps refuse an expired release.", valueName: "days"))
    var expiresIn: Int = 14

    @Option(name: .customLong("sign-key"), help: "An Ed25519 private key (PEM, from seedbuild keygen) to sign the manifest with.")
    var signKey: String?

    @Option(help: "Where the default command publishes a verified build: a folder, file://… or http(s)://… (default: seedbuild.json's \"publish\", else dist).")
    var publish: String?

    @Flag(name: .customLong("allow-unsigned"), help: "The default command publishes an unsigned manifest even where the current release is signed.")
    var allowUnsigned = false

    @Flag(name: .customLong("no-publish"), help: "The default command stops after verifying.")
    var noPublish = false

    @Flag(name: .customLong("no-compress"), help: "Build the store only: no .sqlite.gz and no manifest.")
    var noCompress = false

    @Flag(help: "Print a JSON summary on stdout and no progress.")
    var json = false

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if maxRejects < 0 { throw ValidationError("--max-rejects must be 0 or more") }
        for pair in sources where !pair.contains("=") {
            throw ValidationError("--source takes Entity=path, got \"\(pair)\"")
        }
        if let dataVersion, dataVersion < 0 { throw ValidationError("--data-version must be 0 or more") }
        if !(1...9).contains(compressionLevel) { throw ValidationError("--compression-level must be 1 to 9") }
        if expiresIn < 1 { throw ValidationError("--expires-in must be 1 day or more") }
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
        options.ignoredColumns = ignoredColumns
        for pair in sources {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            options.sources[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return options
    }

    /// Whether to draw progress: only on a terminal, and never with --json or --quiet.
    var showsProgress: Bool {
        !json && !quiet && isatty(STDERR_FILENO) == 1
    }
}
