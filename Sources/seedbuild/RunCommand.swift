import ArgumentParser
import Foundation
import SeedPipeline

/// The default command, `seedbuild POSTCODES_CSV`: the nightly job's whole pipeline.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the whole job on CSV files (the default command): build, compress, verify, publish.")

    @OptionGroup var flags: BuildFlags

    func validate() throws {
        try validateFirstWord(Array(CommandLine.arguments.dropFirst()))
        try flags.validateHasInputs()
        try flags.validatePublishing()
    }

    func run() throws {
        let built = try BuildStep.run(flags)
        let packaged = flags.noCompress ? nil : try PackageStep.run(built, flags: flags)
        BuildReport.print(built, packaged: packaged, flags: flags)
        // Verify what apps will download: the manifest and its artifact, or the bare store.
        let report = try VerifyStep.run(packaged?.manifestPath ?? built.storePath, model: flags.model, userModels: flags.userModels, allVersions: false)
        if !report.passed {
            CommandFailure.printError(report.text)
            throw ExitCode(70)
        }
        if !flags.quiet && !flags.json { print("verified: \(report.result?.rawValue ?? "") under \(report.models.first?.version ?? "the model")") }
        guard let packaged, !flags.noPublish else { return }
        let project = try CommandFailure.exitOnError { () throws in try ProjectFile.load(inDirectory: FileManager.default.currentDirectoryPath) }
        let destination = flags.publish ?? project?.publish ?? "dist"
        var publisher = Publisher()
        publisher.allowUnsigned = flags.allowUnsigned
        try PublishStep.run(publisher, (packaged.manifestPath as NSString).deletingLastPathComponent, to: destination, quiet: flags.quiet || flags.json)
    }
}
