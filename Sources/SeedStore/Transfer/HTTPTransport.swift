import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Blocking HTTP calls over URLSession (FoundationNetworking on Linux), for the publish and fetch stages.
///
/// Each call waits for its answer; bodies are streamed to or from files where they can be large,
/// and never read past a given limit.
public final class HTTPTransport: @unchecked Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        /// Throws for answers another try may fix (5xx, 408, 429), so ``HTTPTransport/retrying(_:_:_:)`` retries them.
        public func throwingIfTransient(_ method: String, _ url: URL) throws(TransferError) -> Response {
            let error = TransferError(.status(status), method: method, url: url.absoluteString)
            if error.isTransient { throw error }
            return self
        }

        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// How transient failures are retried: 5 tries, backoff doubling from 0.5 s up to 8 s, with jitter.
    public struct RetryPolicy: Sendable {
        public var attempts: Int
        public var initialDelay: TimeInterval
        public var maxDelay: TimeInterval

        public init(attempts: Int = 5, initialDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 8) {
            self.attempts = attempts
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
        }
    }

    private let session: URLSession
    public let retryPolicy: RetryPolicy

    public init(timeout: TimeInterval = 60, retryPolicy: RetryPolicy = RetryPolicy()) {
        self.retryPolicy = retryPolicy
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// Sends a request with an optional body (a file is streamed) and collects the answer, up to `maxBytes`.
    public func send(
        _ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil, bodyFile: String? = nil,
        maxBytes: Int64 = 1 << 20
    ) throws(TransferError) -> Response {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let box = ResultBox()
        let task: URLSessionTask
        if let bodyFile {
            task = session.uploadTask(with: request, fromFile: URL(fileURLWithPath: bodyFile)) { data, response, error in
                box.finish(data, response, error)
            }
        } else if let body {
            task = session.uploadTask(with: request, from: body) { data, response, error in box.finish(data, response, error) }
        } else {
            task = session.dataTask(with: request) { data, response, error in box.finish(data, response, error) }
        }
        task.resume()
        let (data, response, error) = box.wait()
        if let error { throw TransferError(.connection(error.localizedDescription), method: method, url: url.absoluteString) }
        guard let http = response as? HTTPURLResponse else {
            throw TransferError(.connection("no HTTP response"), method: method, url: url.absoluteString)
        }
        let body = data ?? Data()
        if Int64(body.count) > maxBytes { throw TransferError(.tooLarge(limit: maxBytes), method: method, url: url.absoluteString) }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers["\(key)"] = "\(value)" }
        return Response(status: http.statusCode, headers: headers, body: body)
    }

    /// Downloads to the end of `file`, resuming from its size with `Range` and `If-Range` when it already
    /// has bytes, and never writing past `maxBytes` in all.
    /// - Returns: the file's size afterwards.
    public func download(_ url: URL, to file: String, maxBytes: Int64, etag: String?, headers: [String: String] = [:]) throws(TransferError) -> Int64 {
        let existing = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if existing > 0, let etag {
            request.setValue("bytes=\(existing)-", forHTTPHeaderField: "Range")
            request.setValue(etag, forHTTPHeaderField: "If-Range")
        }
        let sink = DownloadSink(file: file, offset: existing > 0 && etag != nil ? existing : 0, limit: maxBytes)
        let session = URLSession(configuration: .ephemeral, delegate: sink, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: request).resume()
        let outcome = sink.wait()
        switch outcome {
        case .success(let size): return size
        case .failure(let error): throw TransferError(error.kind, method: "GET", url: url.absoluteString)
        }
    }
}

extension HTTPTransport {
    /// Runs `body` again after transient failures (5xx, 408, 429, dropped connections) with exponential
    /// backoff and jitter; other failures, and the last one, are thrown.
    public func retrying<T>(_ method: String, _ url: URL, _ body: () throws(TransferError) -> T) throws(TransferError) -> T {
        var delay = retryPolicy.initialDelay
        var attempt = 1
        while true {
            do {
                return try body()
            } catch where error.isTransient && attempt < retryPolicy.attempts {
                Thread.sleep(forTimeInterval: min(delay * Double.random(in: 0.5...1.0), retryPolicy.maxDelay))
                delay = min(delay * 2, retryPolicy.maxDelay)
                attempt += 1
            }
        }
    }
}

/// Waits for one completion handler.
private final class ResultBox: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var result: (Data?, URLResponse?, Error?) = (nil, nil, nil)

    func finish(_ data: Data?, _ response: URLResponse?, _ error: Error?) {
        result = (data, response, error)
        semaphore.signal()
    }

    func wait() -> (Data?, URLResponse?, Error?) {
        semaphore.wait()
        return result
    }
}

/// Streams a response body into a file, appending after a `206` and starting over after a `200`.
private final class DownloadSink: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let file: String
    private var offset: Int64
    private let limit: Int64
    private var handle: FileHandle?
    private var written: Int64 = 0
    private var failure: TransferError.Kind?
    private let semaphore = DispatchSemaphore(value: 0)

    init(file: String, offset: Int64, limit: Int64) {
        self.file = file
        self.offset = offset
        self.limit = limit
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 || (status == 206 && offset > 0) else {
            failure = .status(status)
            completionHandler(.cancel)
            return
        }
        if status == 200 { offset = 0 }
        if offset == 0 { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        handle = FileHandle(forWritingAtPath: file)
        _ = try? handle?.seek(toOffset: UInt64(offset))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil else { return }
        if offset + written + Int64(data.count) > limit {
            failure = .tooLarge(limit: limit)
            dataTask.cancel()
            return
        }
        do {
            try handle?.write(contentsOf: data)
            written += Int64(data.count)
        } catch {
            failure = .file("cannot write \(file): \(error.localizedDescription)")
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        try? handle?.synchronize()
        try? handle?.close()
        if failure == nil, let error { failure = .connection(error.localizedDescription) }
        semaphore.signal()
    }

    func wait() -> Result<Int64, TransferKindError> {
        semaphore.wait()
        if let failure { return .failure(TransferKindError(kind: failure)) }
        return .success(offset + written)
    }
}

struct TransferKindError: Error {
    let kind: TransferError.Kind
}
