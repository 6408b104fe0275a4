import ArgumentParser
import SeedPipeline

/// The `seedbuild` command: turns CSV reference data into verified, compressed, read-only SQLite seed stores.
@main
struct Seedbuild: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seedbuild",
        abstract: "Build verified, compressed, read-only SQLite seed stores from CSV reference data.",
        version: String(SeedBuilder.generator.split(separator: " ").last ?? ""),
        subcommands: [
            RunCommand.self, BuildCommand.self, CompressCommand.self, VerifyCommand.self, PublishCommand.self, FetchCommand.self,
            DiffCommand.self, InspectCommand.self, ReportCommand.self, MigrateCommand.self, QueryCommand.self, KeygenCommand.self,
            ModelCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )
}
