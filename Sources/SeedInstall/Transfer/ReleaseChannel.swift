import Foundation

/// Where a release channel (`<dataset>/<model-version>/` on a server) is read from: a folder or HTTP(S).
package struct ReleaseChannel: Sendable {
    /// A folder on this machine, or the base URL of an HTTP(S) channel (ending in `/`).
    package enum Location: Sendable {
        case directory(String)
        case http(URL)
    }

    /// Where the channel is.
    package let location: Location
    private let transport: HTTPTransport
    /// When every request, retries included, gives up.
    package let deadline: Deadline?

    /// The URL schemes a channel can be read over; anything else that looks like a URL is refused.
    package static let schemes = ["http", "https", "file"]

    /// A channel from `http(s)://…/`, `file://…/` or a path; a trailing `latest.json` is the channel's pointer.
    package init(_ text: String, transport: HTTPTransport = HTTPTransport(), deadline: Deadline? = nil) throws(TransferError) {
        self.transport = transport
        self.deadline = deadline
        var text = try LocationAddress.normalized(text, schemes: Self.schemes, method: "GET")
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

    /// The full path or URL of `path` in the channel, for messages.
    package func describe(_ path: String) -> String {
        switch location {
        case .directory(let root): (root as NSString).appendingPathComponent(path)
        case .http(let base): url(path, base).absoluteString
        }
    }

    private func url(_ path: String, _ base: URL) -> URL {
        (path.isEmpty ? base : URL(string: path, relativeTo: base) ?? base).absoluteURL
    }

    /// A small object's bytes, or nil when it does not exist; refuses a body over `maxBytes` as it arrives.
    package func read(_ path: String, maxBytes: Int64) throws(TransferError) -> Data? {
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
            // latest.json is the one object replaced: a cache in between (a CDN) must ask the origin again.
            let headers = path == ReleasePointer.fileName ? ["Cache-Control": "no-cache"] : [:]
            let response = try transport.retrying("GET", url, deadline: deadline) { () throws(TransferError) in
                try transport.send("GET", url, headers: headers, maxBytes: maxBytes, deadline: deadline).throwingIfTransient("GET", url)
            }
            if response.status == 404 { return nil }
            guard response.status == 200 else { throw TransferError(.status(response.status), method: "GET", url: url.absoluteString) }
            return response.body
        }
    }

    /// Downloads an object into `file`, going on from its end when the server supports it; never past `maxBytes`.
    /// A `416` (the file is as long as the object, or longer) starts over rather than asking again.
    /// - Parameter observer: told the bytes as they arrive, and asked whether to stop.
    package func download(_ path: String, into file: DownloadFile, maxBytes: Int64, observer: TransferObserver? = nil)
        throws(TransferError) -> Int64
    {
        switch location {
        case .directory(let root):
            let source = (root as NSString).appendingPathComponent(path)
            guard let input = FileHandle(forReadingAtPath: source) else {
                throw TransferError(.file("no such file"), method: "GET", url: source)
            }
            defer { try? input.close() }
            try file.truncate()
            var total: Int64 = 0
            while let chunk = try? input.read(upToCount: 1 << 20), !chunk.isEmpty {
                if observer?.isCancelled == true { throw TransferError(.cancelled, method: "GET", url: source) }
                if total + Int64(chunk.count) > maxBytes { throw TransferError(.tooLarge(limit: maxBytes), method: "GET", url: source) }
                try file.write(chunk, at: total)
                total += Int64(chunk.count)
                observer?.received(Int64(chunk.count))
                observer?.transferred(total)
            }
            return total
        case .http(let base):
            let url = url(path, base)
            // A download from the start is one GET: its own headers state the length, checked before the
            // body. A HEAD first would cost a round trip, and through a cache make the edge pull the
            // whole object once more. Only a partial file to go on from (an earlier fetch's, or this
            // one's dropped attempt) needs the object's ETag first, for `If-Range`.
            var etag: String?
            return try transport.retrying("GET", url, deadline: deadline) { () throws(TransferError) in
                if file.size > 0, etag == nil {
                    let head = try transport.send("HEAD", url, deadline: deadline).throwingIfTransient("HEAD", url)
                    guard head.status == 200 else { throw TransferError(.status(head.status), method: "HEAD", url: url.absoluteString) }
                    if let stated = Int64(head.header("Content-Length") ?? ""), stated > maxBytes {
                        throw TransferError(.tooLarge(limit: maxBytes), method: "HEAD", url: url.absoluteString)
                    }
                    etag = head.header("ETag")
                }
                do throws(TransferError) {
                    return try transport.download(url, into: file, maxBytes: maxBytes, etag: etag, deadline: deadline, observer: observer)
                } catch  where error.kind == .status(416) || error.kind == .status(206) {
                    // The range asked for is not what came back: what is kept is of no use, start over.
                    try file.truncate()
                    return try transport.download(url, into: file, maxBytes: maxBytes, etag: nil, deadline: deadline, observer: observer)
                }
            }
        }
    }
}
