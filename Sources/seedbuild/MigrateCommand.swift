import ArgumentParser
import Foundation
import SeedModel
import SeedStore

/// `seedbuild migrate STORE --model MODEL --out PATH`: a lightweight migration into a new file ("Save As").
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a seed store to another model version by an inferred lightweight migration, writing a new file.")

    @Argument(help: "The .sqlite seed store to migrate (left unchanged).")
    var store: String

    @Option(help: "The destination model: an .xcdatamodeld (its current version), one .xcdatamodel version, or JSON.")
    var model: String

    @Option(name: .customLong("user-model"), help: "The app's user models, merged with the destination model (repeatable).")
    var userModels: [String] = []

    @Option(help: "Where to write the migrated store.")
    var out: String

    @Flag(help: "Print the plan and result as JSON.")
    var json = false

    func run() throws {
        // The store holds the seed model's configuration; it is stamped for the merged model the app's
        // coordinator uses (Core Data compares every entity of it), so user models are merged in.
        let destination = try CommandFailure.exitOnError { () throws(ModelError) in
            let seed = try ModelLoader.load(model)
            try seed.validated()
            let users = try userModels.map { path throws(ModelError) in try ModelLoader.load(path) }
            guard !users.isEmpty else { return seed }
            let merged = try Model.merged([seed] + users)
            try merged.validated(requireFetchedPropertyTargets: true)
            return merged
        }
        let result = try CommandFailure.exitOnError { try Migrator().migrate(store, to: destination, output: out) }
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
