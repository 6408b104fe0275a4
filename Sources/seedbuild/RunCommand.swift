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
        try flags.validatePublishing()
    }

    func run() throws {
        // Not in validate(): ArgumentParser validates while parsing `--help` too.
        try flags.validateHasInputs()
        let report = RunReport(enabled: flags.json, metricsPath: flags.metrics)
        let publishes = !flags.noPublish && !flags.noCompress
        let destination = try report.stage("publish") { () throws -> String? in
            guard publishes else { return nil }
            let project = try CommandFailure.exitOnError { () throws in
                try ProjectFile.load(inDirectory: FileManager.default.currentDirectoryPath)
            }
            return try PublishStep.destination(flags.publish, project: project)
        }
        let (built, lock, compressed) = try report.stage("build") { try BuildStep.run(flags, publishingTo: destination) }
        defer { withExtendedLifetime(lock) {} }
        report.record("build", status: "ok")
        report.metrics.record(built: built)
        let packaged = try compressed.map { compressed in
            try report.stage("compress") { try PackageStep.run(built, compressed: compressed, flags: flags) }
        }
        report.record(
            "compress", status: packaged == nil ? "skipped" : "ok", details: BuildReport.object(built, packaged: packaged), key: "build")
        if let packaged { report.metrics.record(packaged: packaged) }
        BuildReport.print(built, packaged: packaged, flags: flags, printsJSON: false)
        // Verify what apps will download: the manifest and its artifact, or the bare store.
        let verification = try report.stage("verify") {
            try flags.showingStatus("verifying") {
                try VerifyStep.run(
                    packaged?.manifestPath ?? built.storePath, model: flags.model, userModels: flags.userModels,
                    allVersions: flags.allVersions)
            }
        }
        report.record("verify", status: verification.passed ? "passed" : "failed", details: RunReport.verify(verification))
        if !verification.passed {
            CommandFailure.printError(verification.text)
            report.finish(passed: false)
            throw ExitCode(70)
        }
        if !flags.quiet && !flags.json {
            print("verified: \(verification.result?.rawValue ?? "") under \(verification.models.first?.version ?? "the model")")
        }
        guard let packaged, let destination else {
            report.record("publish", status: "skipped")
            report.finish(passed: true)
            return
        }
        let published = try report.stage("publish") { () throws -> Publisher.Result in
            var publisher = Publisher()
            publisher.allowUnsigned = flags.allowUnsigned
            let result = try flags.showingStatus("publishing") {
                try PublishStep.run(publisher, (packaged.manifestPath as NSString).deletingLastPathComponent, to: destination)
            }
            if !flags.quiet && !flags.json { PublishStep.printSummary(result) }
            return result
        }
        report.record("publish", status: published.outcome.rawValue, details: RunReport.publish(published))
        report.metrics.record(published: published)
        report.finish(passed: true)
    }
}
