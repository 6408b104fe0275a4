import ArgumentParser
import Foundation
import SeedPipeline

/// What the building commands make of missing or unusable inputs: `seedbuild verfy x` is a misspelt
/// command, not a CSV path; bare `seedbuild` with nothing to build prints the usage.
extension BuildFlags {
    /// Refuses (exit 64) a build with no CSV given and none named in `seedbuild.json`, printing the usage.
    func validateHasInputs(directory: String = FileManager.default.currentDirectoryPath) throws {
        guard files.isEmpty, sources.isEmpty else { return }
        // A malformed project file is reported by the run itself, naming the key.
        let project: ProjectFile?
        do { project = try ProjectFile.load(inDirectory: directory) } catch { return }
        guard project?.sources.isEmpty ?? true else { return }
        CommandFailure.printError(Seedbuild.helpMessage())
        let why = project == nil ? "no \(ProjectFile.fileName) here" : "\(ProjectFile.fileName) names no \"sources\""
        CommandFailure.printError("error: no CSV given and \(why); give the CSV files (seedbuild seeds/postcodes.csv) or a command")
        throw ExitCode(64)
    }
}

extension RunCommand {
    /// Only when the default command was chosen implicitly (`seedbuild run verfy` names a file): a first
    /// word that is not a file and does not look like a path is an unknown command (exit 64).
    /// - Parameter arguments: the command line without the program name.
    func validateFirstWord(_ arguments: [String]) throws {
        guard let first = arguments.first, first == flags.files.first, !first.hasPrefix("-"),
            !FileManager.default.fileExists(atPath: first), !first.contains("/"), !first.contains(".")
        else { return }
        let commands = Seedbuild.configuration.subcommands.map { $0.configuration.commandName ?? "" } + ["help"]
        let near = NameSuggestions.nearest(to: first, among: commands, limit: 2)
        let hint = near.isEmpty ? "" : "; did you mean \(near.joined(separator: " or "))?"
        CommandFailure.printError("error: unknown command \"\(first)\"\(hint) It is not a file either. seedbuild help lists the commands")
        throw ExitCode(64)
    }
}
