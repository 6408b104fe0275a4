import ArgumentParser
import Foundation
import SeedInstall
import SeedPipeline

/// `seedbuild report CHANNEL --out FILE`: a channel's page (the one `publish` writes as `index.html`),
/// drawn for any channel, a folder or a URL, as apps read it.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Draw a channel's page (current release, last night's changes, plots over the kept releases) as one HTML file.")

    @Argument(help: "The channel: a folder, file://… or http(s)://… of <dataset>/<model-version>/, as apps fetch it.")
    var channel: String

    @Option(help: "Where to write the page (default: channel.html).")
    var out: String = "channel.html"

    @Option(help: "The most releases to read, newest first.")
    var limit: Int = ChannelHistory.defaultLimit

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be 1 or more") }
    }

    func run() throws {
        let history = try CommandFailure.exitOnError { try ChannelHistory.load(channel, limit: limit) }
        let html = ChannelPage(history: history).html
        try CommandFailure.exitOnError { () throws in
            do {
                try Data(html.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
            } catch {
                throw IngestError(
                    .cannotCreateOutput, file: out,
                    "cannot write the page: \(error.localizedDescription); check the folder exists and is writable")
            }
        }
        print(
            "wrote \(out): \(history.releases.count) releases of \(history.dataset), current data version \(history.releases.first?.dataVersion ?? 0)"
        )
    }
}
