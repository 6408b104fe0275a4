import ArgumentParser
import Foundation
import SeedPipeline

/// `seedbuild build`: CSV files → a read-only SQLite seed store.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Ingest CSV files and build a read-only SQLite seed store.")

    @OptionGroup var flags: BuildFlags

    func run() throws {
        let built = try BuildStep.run(flags)
        BuildReport.print(built, flags: flags)
    }
}

/// Runs the build stage for a command, turning failures into messages and exit statuses.
enum BuildStep {
    static func run(_ flags: BuildFlags) throws -> BuiltStore {
        let project = try CommandFailure.exitOnError { () throws in
            try ProjectFile.load(inDirectory: FileManager.default.currentDirectoryPath)
        }
        let (request, warnings) = try CommandFailure.exitOnError { try flags.options.resolve(project: project) }
        if !flags.quiet {
            for warning in warnings { CommandFailure.printError(warning.description) }
        }
        let display = flags.showsProgress ? ProgressDisplay() : nil
        defer { display?.finish() }
        return try CommandFailure.exitOnError {
            try SeedBuilder().build(request) { progress in display?.update(progress) }
        }
    }
}
