import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Blocking HTTP calls over URLSession (FoundationNetworking on Linux), for the publish and fetch stages.
///
/// Each call waits for its answer; bodies are streamed to or from files where they can be large,
/// and never read past a given limit.
public final class HTTPTransport: Sendable {
    /// An answer: its status, headers and the body read (up to the call's limit).
    package struct Response: Sendable {
        /// The HTTP status code.
        package var status: Int
        /// The response headers as the server sent them (look one up with ``header(_:)``).
        package var headers: [String: String]
        /// The body as received, never more than the call's `maxBytes`.
        package var body: Data

        /// Throws for answers another try may fix (5xx, 408, 429), so ``HTTPTransport/retrying(_:_:deadline:_:)`` retries them.
        package func throwingIfTransient(_ method: String, _ url: URL) throws(TransferError) -> Response {
            let error = TransferError(.status(status), method: method, url: url.absoluteString)
            if error.isTransient { throw error }
            return self
        }

        /// The value of the header `name`, compared without case; nil when absent.
        package func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// How transient failures are retried: 5 tries, backoff doubling from 0.5 s up to 8 s, with jitter.
    public struct RetryPolicy: Sendable {
        /// Tries in all, the first included.
        public var attempts: Int
        /// Seconds before the second try; each later wait doubles it.
        public var initialDelay: TimeInterval
        /// The longest wait between two tries, in seconds.
        public var maxDelay: TimeInterval

        /// A policy of `attempts` tries, waiting from `initialDelay` up to `maxDelay` seconds between them.
        public init(attempts: Int = 5, initialDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 8) {
            self.attempts = attempts
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
        }
    }

    /// How transient failures are retried.
    public let retryPolicy: RetryPolicy
    /// How long and how slowly one request may run.
    public let limits: TransferLimits

    /// A transport with this retry policy and these limits.
    public init(retryPolicy: RetryPolicy = RetryPolicy(), limits: TransferLimits = TransferLimits()) {
        self.retryPolicy = retryPolicy
        self.limits = limits
    }

    /// A transport whose requests give up after `timeout` seconds with nothing received.
    /// - Parameters:
    ///   - timeout: seconds with nothing received before a request is given up (the idle timeout).
    ///   - retryPolicy: how transient failures are retried.
    public convenience init(timeout: TimeInterval, retryPolicy: RetryPolicy = RetryPolicy()) {
        var limits = TransferLimits()
        limits.idleTimeout = timeout
        self.init(retryPolicy: retryPolicy, limits: limits)
    }

    /// Sends a request and collects the answer as it arrives, refusing one whose `Content-Length` is
    /// over `maxBytes` before reading it, and stopping at `maxBytes`. Without `makeTask`, a request
    /// without a body (`GET`, `HEAD`); the build's uploads make their task
    /// (`SeedPipeline/Publish/HTTPTransport+Upload.swift`), and are not held to the idle timeout
    /// and minimum rate.
    package func send(
        _ method: String, _ url: URL, headers: [String: String] = [:], maxBytes: Int64 = 1 << 20, deadline: Deadline? = nil,
        makeTask: ((URLSession, URLRequest) -> URLSessionTask)? = nil
    ) throws(TransferError) -> Response {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let transfer = TransferTask(
            method: method, url: url, limit: maxBytes, sink: .memory, limits: limits, deadline: deadline, watchesRate: makeTask == nil)
        let outcome = try transfer.run(request, makeTask: makeTask.map { make in { [request] session in make(session, request) } })
        return Response(status: outcome.status, headers: outcome.headers, body: outcome.body)
    }

    /// Downloads into `file`, going on from its end with `Range` and `If-Range` when it has bytes and
    /// `etag` is known, starting over after a `200`, and never writing past `maxBytes` in all.
    /// - Parameter observer: told the bytes as they arrive, and asked whether to stop.
    /// - Returns: the file's size afterwards.
    package func download(
        _ url: URL, into file: DownloadFile, maxBytes: Int64, etag: String?, headers: [String: String] = [:], deadline: Deadline? = nil,
        observer: TransferObserver? = nil
    ) throws(TransferError) -> Int64 {
        let existing = file.size
        var request = URLRequest(url: url)
        // Bytes as stored: a body decoded on the fly could grow past its stated length.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let resume = existing > 0 && existing < maxBytes && etag != nil
        if resume, let etag {
            request.setValue("bytes=\(existing)-", forHTTPHeaderField: "Range")
            request.setValue(etag, forHTTPHeaderField: "If-Range")
        }
        let transfer = TransferTask(
            method: "GET", url: url, limit: maxBytes, sink: .file(file, resumeOffset: resume ? existing : 0), limits: limits,
            deadline: deadline, watchesRate: true, observer: observer)
        return try transfer.run(request).size
    }
}

extension HTTPTransport {
    /// Runs `body` again after transient failures (5xx, 408, 429, dropped connections) with exponential
    /// backoff and jitter, never past `deadline`; other failures, and the last one, are thrown.
    package func retrying<T>(_ method: String, _ url: URL, deadline: Deadline? = nil, _ body: () throws(TransferError) -> T)
        throws(TransferError) -> T
    {
        var delay = retryPolicy.initialDelay
        var attempt = 1
        while true {
            do {
                return try body()
            } catch  where error.isRetryable && attempt < retryPolicy.attempts {
                let pause = min(delay * Double.random(in: 0.5...1.0), retryPolicy.maxDelay)
                if let deadline, deadline.remaining <= pause {
                    throw TransferError(
                        .timedOut("the fetch's deadline of \(deadline.seconds) s passed while retrying after: \(error)"), method: method,
                        url: url.absoluteString)
                }
                Thread.sleep(forTimeInterval: pause)
                delay = min(delay * 2, retryPolicy.maxDelay)
                attempt += 1
            }
        }
    }
}
