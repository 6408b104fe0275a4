import Foundation

extension Publisher {
    /// The channel page's name, beside `latest.json`.
    public static let pageName = "index.html"

    /// Writes the channel page (``ChannelPage``) from what the channel now holds, after the pointer
    /// moved. The release is published whatever happens here: a page that cannot be made or written
    /// is reported in ``Result/pageProblem``, never a failed publish.
    func writePage(_ channel: PublishDestination, into result: inout Result) {
        do {
            let history = try ChannelHistory.load(result.channel, read: { try channel.read($0, maxBytes: $1) }, describe: channel.describe)
            try channel.putPage(Data(ChannelPage(history: history, generated: now()).html.utf8), at: Self.pageName)
            result.pageURL = channel.describe(Self.pageName)
        } catch {
            result.pageProblem = "the channel page \(channel.describe(Self.pageName)) was not written: \(error)"
        }
    }
}
