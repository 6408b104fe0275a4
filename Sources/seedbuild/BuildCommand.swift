import ArgumentParser
import Foundation
import SeedPipeline

/// `seedbuild build`: CSV files → a read-only SQLite seed store, its gzip artifact and manifest.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Ingest CSV files, build a read-only SQLite seed store, compress it and write its manifest.")

    @OptionGroup var flags: BuildFlags

    func validate() throws {
        try flags.validateHasInputs()
        try flags.validateWithoutPublishing()
    }

    func run() throws {
        let (built, lock) = try BuildStep.run(flags)
        defer { withExtendedLifetime(lock) {} }
        let packaged = flags.noCompress ? nil : try PackageStep.run(built, flags: flags)
        BuildReport.print(built, packaged: packaged, flags: flags)
    }
}

/// Runs the build stage for a command, turning failures into messages and exit statuses.
enum BuildStep {
    /// - Returns: the build, and the output folder's lock, to hold until the job ends.
    static func run(_ flags: BuildFlags) throws -> (BuiltStore, OutputLock) {
        let project = try CommandFailure.exitOnError { () throws in
            try ProjectFile.load(inDirectory: FileManager.default.currentDirectoryPath)
        }
        let (request, warnings) = try CommandFailure.exitOnError { try flags.options.resolve(project: project) }
        if !flags.quiet {
            for warning in warnings { CommandFailure.printError(warning.description) }
        }
        let lock = try CommandFailure.exitOnError { () throws(IngestError) in try OutputLock(directory: request.outputDirectory, wait: flags.wait) }
        let display = flags.showsProgress ? ProgressDisplay() : nil
        defer { display?.finish() }
        let built = try CommandFailure.exitOnError {
            try SeedBuilder().build(request) { progress in display?.update(progress) }
        }
        return (built, lock)
    }
}

/// Runs the compress stage: the artifact and the manifest.
enum PackageStep {
    static func run(_ built: BuiltStore, flags: BuildFlags) throws -> PackagedArtifact {
        var packager = Packager()
        packager.compressionLevel = flags.effectiveCompressionLevel
        packager.expiresInDays = flags.effectiveExpiresIn
        packager.signingKey = try CommandFailure.exitOnError { () throws(IngestError) in try SigningKey.load(option: flags.signKey) }
        let display = flags.showsProgress ? ProgressDisplay() : nil
        defer { display?.finish() }
        return try CommandFailure.exitOnError {
            try packager.package(built) { done, total in
                display?.updateBytes("compressing", done: done, total: total)
            }
        }
    }
}
