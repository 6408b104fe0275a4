import ArgumentParser
import Foundation
import SeedPipeline

/// The default command, `seedbuild POSTCODES_CSV`: the nightly job's whole pipeline.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the whole job on CSV files (the default command): build the seed store, compress it, write its manifest.")

    @OptionGroup var flags: BuildFlags

    func run() throws {
        let built = try BuildStep.run(flags)
        let packaged = flags.noCompress ? nil : try PackageStep.run(built, flags: flags)
        BuildReport.print(built, packaged: packaged, flags: flags)
    }
}
