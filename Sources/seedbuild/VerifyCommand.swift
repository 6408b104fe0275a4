import ArgumentParser
import Foundation
import SeedModel
import SeedPipeline
import SeedStore

/// `seedbuild verify ARTIFACT`: proves the seed opens under the app's merged model.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check an artifact (.sqlite, .sqlite.gz or manifest.json) and prove it opens under the app's merged model.")

    @Argument(help: "A .sqlite, .sqlite.gz or manifest.json.")
    var artifact: String

    @OptionGroup var models: VerifyModelOptions

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() throws {
        // A verification that ran prints its own report, passed or not; only one that could not run is reported as failed.
        let report = try CommandFailure.reportingFailure(asJSON: json) { try verifyArtifact() }
        print(json ? report.json.prettyText : report.text)
        if !report.passed { throw ExitCode(70) }
    }

    private func verifyArtifact() throws -> VerificationReport {
        let display = ProgressDisplay.onTerminal(unless: json)
        display?.status("verifying \(artifact)")
        let report: VerificationReport
        do {
            defer { display?.finish() }
            report = try VerifyStep.run(artifact, model: models.model, userModels: models.userModels, allVersions: models.allVersions)
        }
        return report
    }
}

/// The seed and user models a verification runs against; defaults from seedbuild.json.
struct VerifyModelOptions: ParsableArguments {
    @Option(help: "The seed model (default: seedbuild.json's \"model\").")
    var model: String?

    @Option(
        name: .customLong("user-model"),
        help: "The app's user models to merge with it (repeatable; default: seedbuild.json's \"userModels\").")
    var userModels: [String] = []

    @Flag(
        name: .customLong("all-versions"),
        help:
            "Check every version of the seed and user model bundles (each app model version) and print whether Core Data opens the seed directly, after the installer stamps it, only after a migration, or not at all."
    )
    var allVersions = false
}

/// Runs the verify stage, turning failures into messages and exit statuses.
enum VerifyStep {
    static func run(_ artifact: String, model: String?, userModels explicitUserModels: [String], allVersions: Bool) throws
        -> VerificationReport
    {
        let project = try CommandFailure.exitOnError { () throws in
            try ProjectFile.load(inDirectory: FileManager.default.currentDirectoryPath)
        }
        guard let modelPath = model ?? project?.model else {
            CommandFailure.printError("error: no seed model: pass --model PATH or name one in seedbuild.json")
            throw ExitCode(64)
        }
        // The project's user models belong with its model; another model brings its own.
        let usesProjectModel = model == nil || model == project?.model
        let userPaths = !explicitUserModels.isEmpty ? explicitUserModels : (usesProjectModel ? project?.userModels ?? [] : [])
        let (seedModels, userModels, otherUserModels) = try CommandFailure.exitOnError { () throws(ModelError) in
            let current = try ModelLoader.load(modelPath)
            var seeds = [current]
            if allVersions {
                seeds += try ModelLoader.loadAllVersions(modelPath).filter { $0.source?.version != current.source?.version }
            }
            let users = try userPaths.map { path throws(ModelError) in try ModelLoader.load(path) }
            // Every older version of a user model, with the other user models current: the apps in the field.
            var others: [[Model]] = []
            if allVersions {
                for (index, path) in userPaths.enumerated() {
                    for older in try ModelLoader.loadAllVersions(path) where older.source?.version != users[index].source?.version {
                        var set = users
                        set[index] = older
                        others.append(set)
                    }
                }
            }
            return (seeds, users, others)
        }
        return try CommandFailure.exitOnError {
            try Verifier().verify(artifact, seedModels: seedModels, userModels: userModels, otherUserModels: otherUserModels)
        }
    }
}
