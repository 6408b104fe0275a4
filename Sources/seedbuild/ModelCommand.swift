import ArgumentParser
import Foundation
import SeedModel
import SeedStore

/// `seedbuild model …`: read, check and print data models.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Read, check and print data models (.xcdatamodeld, .xcdatamodel, JSON, or compiled .momd and .mom).",
        subcommands: [Show.self, Hashes.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the model, merging every model given.")

        @OptionGroup var models: ModelOptions

        func run() throws {
            let model = try models.loadMerged()
            print(
                models.json ? String(decoding: model.canonicalJSON(), as: UTF8.self) : model.summary(), terminator: models.json ? "" : "\n")
        }
    }

    struct Hashes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each entity's version hash, as Core Data's entityVersionHashesByName holds it.",
            discussion: """
                Hex by default; --base64 prints the form Core Data's debug output uses; --json prints both \
                and the model's version checksum (NSStoreModelVersionChecksumKey) and hashes digest. \
                Several models are merged first, as the app's coordinator merges them.
                """)

        @OptionGroup var models: ModelOptions

        @Option(help: "Print only this configuration's entities (the checksum still covers every entity, as Core Data's does).")
        var configuration: String = "Default"

        @Flag(help: "Print base64 instead of hex.")
        var base64 = false

        func validate() throws {
            if base64 && models.json { throw ValidationError("--json prints hex and base64 both; give one of --json and --base64") }
        }

        func run() throws {
            let model = try models.loadMerged()
            let hashes = try CommandFailure.exitOnError { () throws(ModelError) in
                try model.versionHashes(configuration: configuration)
            }
            if models.json {
                let object: [String: Any] = [
                    "versionChecksum": model.versionChecksum,
                    "versionHashesDigest": model.versionHashesDigest,
                    "entities": hashes.mapValues { ["hex": $0.hexString, "base64": $0.base64EncodedString()] },
                ]
                let data = try JSONSerialization.data(
                    withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            } else {
                for name in hashes.keys.sorted() {
                    print("\(base64 ? hashes[name]!.base64EncodedString() : hashes[name]!.hexString)  \(name)")
                }
            }
        }
    }
}

/// The model paths and output form shared by the `model` subcommands.
struct ModelOptions: ParsableArguments {
    @Argument(
        help:
            "Models to load and merge: .xcdatamodeld bundles, .xcdatamodel folders, JSON files, compiled .momd folders or .mom files, or a Core Data store (the model cached in it)."
    )
    var paths: [String]

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one model path") }
    }

    /// Loads, merges and validates the models, printing warnings; exits 65 or 66 on errors.
    func loadMerged() throws -> Model {
        var models: [Model] = []
        for path in paths {
            // A Core Data store carries the model it was last opened with in Z_MODELCACHE.
            let model =
                StoreFile.isSQLite(path)
                ? try CommandFailure.exitOnError { try CoreDataStoreFile.cachedModel(at: URL(fileURLWithPath: path)) }
                : try CommandFailure.exitOnError { () throws(ModelError) in try ModelLoader.load(path) }
            _ = try CommandFailure.exitOnError { () throws(ModelError) in try model.validated() }
            models.append(model)
        }
        return try CommandFailure.exitOnError { () throws(ModelError) in
            let merged = try Model.merged(models)
            let warnings = try merged.validated(requireFetchedPropertyTargets: models.count > 1)
            for warning in warnings { CommandFailure.printError(warning.description) }
            return merged
        }
    }
}
