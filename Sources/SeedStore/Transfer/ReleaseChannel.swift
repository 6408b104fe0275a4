import Foundation

/// Where a release channel (`<dataset>/<model-version>/` on a server) is read from: a folder or HTTP(S).
public struct ReleaseChannel: Sendable {
    public enum Location: Sendable {
        case directory(String)
        case http(URL)
    }

    public let location: Location
    private let transport: HTTPTransport

    /// A channel from `http(s)://…/`, `file://…/` or a path; a trailing `latest.json` is the channel's pointer.
    public init(_ text: String, transport: HTTPTransport = HTTPTransport()) throws(TransferError) {
        self.transport = transport
        var text = text
        if text.hasSuffix("/latest.json") { text.removeLast("latest.json".count) }
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text.hasSuffix("/") ? text : text + "/") else {
                throw TransferError(.file("not a URL"), method: "GET", url: text)
            }
            location = .http(url)
        } else if text.hasPrefix("file://") {
            location = .directory(URL(string: text)?.path ?? String(text.dropFirst(7)))
        } else {
            location = .directory(text)
        }
    }

    public func describe(_ path: String) -> String {
        switch location {
        case .directory(let root): (root as NSString).appendingPathComponent(path)
        case .http(let base): url(path, base).absoluteString
        }
    }

    private func url(_ path: String, _ base: URL) -> URL {
        (path.isEmpty ? base : URL(string: path, relativeTo: base) ?? base).absoluteURL
    }

    /// A small object's bytes, or nil when it does not exist; refuses a body over `maxBytes`.
    public func read(_ path: String, maxBytes: Int64) throws(TransferError) -> Data? {
        switch location {
        case .directory(let root):
            let file = (root as NSString).appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: file) else { return nil }
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
            if size > maxBytes { throw TransferError(.tooLarge(limit: maxBytes), method: "GET", url: file) }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw TransferError(.file("cannot read"), method: "GET", url: file)
            }
            return data
        case .http(let base):
            let url = url(path, base)
            let response = try transport.retrying("GET", url) { () throws(TransferError) in
                try transport.send("GET", url, maxBytes: maxBytes).throwingIfTransient("GET", url)
            }
            if response.status == 404 { return nil }
            guard response.status == 200 else { throw TransferError(.status(response.status), method: "GET", url: url.absoluteString) }
            return response.body
        }
    }

    /// Downloads an object to `file`, resuming a partial file when the server supports it; never past `maxBytes`.
    public func download(_ path: String, to file: String, maxBytes: Int64) throws(TransferError) -> Int64 {
        switch location {
        case .directory(let root):
            let source = (root as NSString).appendingPathComponent(path)
            guard let input = FileHandle(forReadingAtPath: source) else {
                throw TransferError(.file("no such file"), method: "GET", url: source)
            }
            defer { try? input.close() }
            _ = FileManager.default.createFile(atPath: file, contents: nil)
            guard let output = FileHandle(forWritingAtPath: file) else { throw TransferError(.file("cannot create \(file)"), method: "GET", url: source) }
            defer { try? output.close() }
            var total: Int64 = 0
            while let chunk = try? input.read(upToCount: 1 << 20), !chunk.isEmpty {
                total += Int64(chunk.count)
                if total > maxBytes { throw TransferError(.tooLarge(limit: maxBytes), method: "GET", url: source) }
                do { try output.write(contentsOf: chunk) } catch { throw TransferError(.file("cannot write \(file)"), method: "GET", url: source) }
            }
            return total
        case .http(let base):
            let url = url(path, base)
            let head = try transport.retrying("HEAD", url) { () throws(TransferError) in try transport.send("HEAD", url).throwingIfTransient("HEAD", url) }
            guard head.status == 200 else { throw TransferError(.status(head.status), method: "HEAD", url: url.absoluteString) }
            let etag = head.header("ETag")
            return try transport.retrying("GET", url) { () throws(TransferError) in
                try transport.download(url, to: file, maxBytes: maxBytes, etag: etag)
            }
        }
    }
}
