import ArgumentParser
import Foundation
import SeedPipeline
import SeedStore

/// `seedbuild diff A [B]`: each entity's added, removed and changed rows between two releases.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show each entity's added, removed and changed rows between two releases.",
        discussion: """
            A and B are each a .sqlite store, a .sqlite.gz artifact, a manifest.json, a build's output folder, \
            or a channel folder or URL (its current release; CHANNEL@VERSION for that data version). \
            With a channel alone, its previous release is compared with its current one: what changed last night.
            """)

    @Argument(help: "The earlier release (or a channel alone: its previous release against its current one).")
    var from: String

    @Argument(help: "The later release.")
    var to: String?

    @Option(
        help: ArgumentHelp("Show up to N changed rows per entity, with the old and new values of their changed columns.", valueName: "N"))
    var rows: Int = 0

    @Flag(help: "Print one JSON object on stdout.")
    var json = false

    func validate() throws {
        if rows < 0 { throw ValidationError("--rows must be 0 or more") }
    }

    func run() throws {
        try CommandFailure.reportingFailure(asJSON: json) {
            let report = try CommandFailure.exitOnError { try compare() }
            print(json ? report.jsonValue.prettyText : report.text)
        }
    }

    private func compare() throws -> ChangeReport {
        var (earlier, later) = (from, to ?? from)
        if to == nil {
            let releases = try ReleaseSource.releases(of: from)
            guard releases.count > 1 else {
                throw StoreError(
                    .refused, path: from,
                    "the channel publishes one release (\(releases.first.map(String.init) ?? "none")); give two releases to compare")
            }
            earlier = "\(from)@\(releases[1])"
            later = "\(from)@\(releases[0])"
        }
        let base = try ReleaseSource.open(earlier)
        defer { base.close() }
        let new = try ReleaseSource.open(later)
        defer { new.close() }
        return try StoreComparison(rowLimit: rows).compare(base: base.path, new: new.path, from: earlier, to: later)
    }
}
