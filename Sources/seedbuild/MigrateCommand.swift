import ArgumentParser
import Foundation
import SeedModel
import SeedStore

/// `seedbuild migrate STORE --model MODEL --out PATH`: a lightweight migration into a new file ("Save As");
/// `--format plain|coredata` writes the store in the other layout (with or without a migration).
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract:
            "Migrate a seed store to another model version by an inferred lightweight migration, or to the other store layout, writing a new file.",
        discussion: """
            seedbuild migrate seed.sqlite --model schemas/PostCodesModel.xcdatamodeld --out seed-v2.sqlite
            seedbuild migrate CoreData.sqlite --format plain --out seed-plain.sqlite     (Apple's own stores too)
            seedbuild migrate seed-plain.sqlite --format coredata --model SEED --user-model USER --out seed.sqlite
            """)

    @Argument(help: "The .sqlite seed store to migrate (left unchanged).")
    var store: String

    @Option(
        help:
            "The destination model: an .xcdatamodeld or .momd (its current version), one .xcdatamodel version or .mom, or JSON. With --format alone, the model the store is stamped for (needed to turn a plain store stamped for a merged model into Core Data's layout)."
    )
    var model: String?

    @Option(help: ArgumentHelp("Write the store in this layout: coredata (Core Data's own) or plain.", valueName: "coredata|plain"))
    var format: StoreLayout?

    @Option(name: .customLong("user-model"), help: "The app's user models, merged with the destination model (repeatable).")
    var userModels: [String] = []

    @Option(help: "Where to write the migrated store.")
    var out: String

    @Flag(help: "Print the plan and result as JSON.")
    var json = false

    func validate() throws {
        if model == nil, format == nil { throw ValidationError("give --model (to migrate) or --format (to change the layout), or both") }
        if model == nil, !userModels.isEmpty { throw ValidationError("--user-model merges with --model; give --model too") }
    }

    func run() throws {
        try CommandFailure.reportingFailure(asJSON: json) { try migrate() }
    }

    private func migrate() throws {
        // Checked first: with both --model and --format the second step reads a temporary file.
        try CommandFailure.exitOnError { () throws(StoreError) in try StoreDatabase.refuseWritingOver(source: store, output: out) }
        // The store holds the seed model's configuration; it is stamped for the merged model the app's
        // coordinator uses (Core Data compares every entity of it), so user models are merged in.
        let destination = try CommandFailure.exitOnError { () throws(ModelError) -> Model? in
            guard let model else { return nil }
            let seed = try ModelLoader.load(model)
            try seed.validated()
            let users = try userModels.map { path throws(ModelError) in try ModelLoader.load(path) }
            guard !users.isEmpty else { return seed }
            let merged = try Model.merged([seed] + users)
            try merged.validated(requireFetchedPropertyTargets: true)
            return merged
        }
        guard let format else {
            return try report(try CommandFailure.exitOnError { try Migrator().migrate(store, to: destination!, output: out) })
        }
        let layout = try CommandFailure.exitOnError { try StoreFile.layout(at: store) }
        // Not stamped for the given model yet: migrate first, then change the layout.
        let needsMigration =
            try destination.map { model in
                try !CommandFailure.exitOnError { try StoreMetadata.read(at: URL(fileURLWithPath: store)) }.hashDifferences(
                    from: model, embeddedModel: nil
                ).isEmpty
            } ?? false
        if needsMigration, let destination {
            let migrated = AtomicFile.temporaryPath(for: out)
            defer {
                try? FileManager.default.removeItem(atPath: migrated)
                ExternalDataFolder.remove(forStore: migrated)
            }
            let result = try CommandFailure.exitOnError { try Migrator().migrate(store, to: destination, output: migrated) }
            warnAboutMissingFiles(
                try CommandFailure.exitOnError { try LayoutConversion.convert(migrated, to: format, output: out, model: destination) })
            var converted = result
            converted.outputPath = out
            return try report(converted)
        }
        warnAboutMissingFiles(
            try CommandFailure.exitOnError { try LayoutConversion.convert(store, to: format, output: out, model: destination) })
        if json {
            print(JSONValue.object(["output": .string(out), "from": .string(layout.name), "to": .string(format.name)]).prettyText)
        } else {
            print("converted \(store) (\(layout.name) layout) → \(out) (\(format.name) layout)")
        }
    }

    private func warnAboutMissingFiles(_ result: LayoutConversion.Result) {
        guard !result.missingExternalFiles.isEmpty else { return }
        let names = result.missingExternalFiles
        CommandFailure.printError(
            "warning: \(names.count) values refer to external data files that are not beside \(store) (it has no external data folder); "
                + "they are kept as references: \(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? ", …" : "")")
    }

    private func report(_ result: Migrator.Result) throws {
        if json {
            let object: JSONValue = .object([
                "output": .string(result.outputPath),
                "plan": .array(result.plan.changes.map { .string($0.description) }),
                "warnings": .array(result.plan.warnings.map(JSONValue.string)),
                "rowCounts": .object(result.rowCounts.mapValues(JSONValue.integer)),
                "droppedLinks": .object(result.droppedLinks.mapValues { .integer(Int64($0)) }),
            ])
            print(object.prettyText)
        } else {
            print("plan:\n\(result.plan)")
            for (link, count) in result.droppedLinks.sorted(by: { $0.key < $1.key }) {
                print("dropped \(count) links of \(link): a to-many became a to-one")
            }
            print("migrated \(store) → \(result.outputPath)")
        }
    }
}
