import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request's delegate: takes the body as it arrives, into memory or a ``DownloadFile``, and
/// stops the request the moment a limit is crossed — a `Content-Length` over the limit before any of
/// the body is read, bytes past it as they arrive, the deadline, the idle timeout, the minimum rate.
///
/// Safe to share: every mutable property is read and written only under `lock` (the delegate's callbacks, the watchdog
/// and the waiting caller all take it); the rest are `let`s.
final class TransferTask: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Sink {
        /// Collected in memory (small bodies).
        case memory
        /// Written to the file: after a 206 from `resumeOffset`, after a 200 from the start.
        case file(DownloadFile, resumeOffset: Int64)
    }

    struct Outcome {
        var status: Int
        var headers: [String: String]
        var body: Data
        /// Bytes in the file (file sinks), or of the body.
        var size: Int64
    }

    private let method: String
    private let url: URL
    private let limit: Int64
    private let sink: Sink
    private let limits: TransferLimits
    private let deadline: Deadline?
    /// Idle timeout and minimum rate apply to answers being downloaded, not to uploads.
    private let watchesRate: Bool
    /// Told the bytes received, and asked whether to stop.
    private let observer: TransferObserver?

    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var task: URLSessionTask?
    private var finished = false
    private var isFinished: Bool { lock.withLock { finished } }
    private var failure: TransferError.Kind?
    private var status = 0
    private var headers: [String: String] = [:]
    private var body = Data()
    private var offset: Int64 = 0
    private var received: Int64 = 0
    private var lastArrival = DispatchTime.now()
    private let started = DispatchTime.now()
    /// (seconds since start, bytes received) once per watchdog tick, for the rate over the window.
    private var samples: [(TimeInterval, Int64)] = []

    init(
        method: String, url: URL, limit: Int64, sink: Sink, limits: TransferLimits, deadline: Deadline?, watchesRate: Bool,
        observer: TransferObserver? = nil
    ) {
        self.observer = observer
        self.method = method
        self.url = url
        self.limit = limit
        self.sink = sink
        self.limits = limits
        self.deadline = deadline
        self.watchesRate = watchesRate
    }

    /// Runs the request to its end or its first broken limit: a data task, or the one `makeTask`
    /// makes (an upload's, from the build's publishing).
    func run(_ request: URLRequest, makeTask: ((URLSession) -> URLSessionTask)? = nil) throws(TransferError) -> Outcome {
        if let deadline, deadline.hasPassed { throw failed(.timedOut(deadlineMessage(deadline))) }
        if observer?.isCancelled == true { throw failed(.cancelled) }
        let configuration = URLSessionConfiguration.ephemeral
        // URLSession's own idle timer goes off a little after the watchdog's, which says what was
        // received; an upload (not watched) keeps the minute it always had.
        configuration.timeoutIntervalForRequest = watchesRate ? limits.idleTimeout + 2 : max(limits.idleTimeout, 60)
        configuration.timeoutIntervalForResource = deadline.map { max($0.remaining, 1) } ?? 7 * 86_400
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // FoundationNetworking keeps a copy of every cacheable body in memory; no cache, no copy.
        configuration.urlCache = nil
        let queue = InlineDelegateQueue()
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        // From a thread of its own: it waits for the network thread, which a flood may keep busy.
        defer { Thread.detachNewThread { session.finishTasksAndInvalidate() } }
        let task = makeTask?(session) ?? session.dataTask(with: request)
        lock.withLock { self.task = task }
        // A thread of its own: under a flood, the network and delegate threads can keep Dispatch's
        // small pool busy, and a timer or a cancel queued there would wait behind them.
        let watching = Thread { [weak self] in
            while let self, !self.isFinished {
                usleep(100_000)
                self.watch()
            }
        }
        watching.start()
        task.resume()
        done.wait()
        lock.withLock { finished = true }
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw TransferError(failure, method: method, url: url.absoluteString) }
        let size: Int64 = if case .file = sink { offset + received } else { Int64(self.body.count) }
        return Outcome(status: status, headers: headers, body: self.body, size: size)
    }

    private func failed(_ kind: TransferError.Kind) -> TransferError {
        TransferError(kind, method: method, url: url.absoluteString)
    }

    /// Records the first failure, lets the caller go on, and cancels from a thread of its own: the
    /// delegate runs on FoundationNetworking's network thread, and `cancel()` waits for that thread.
    private func fail(_ kind: TransferError.Kind) {
        let task: URLSessionTask? = lock.withLock {
            guard failure == nil else { return nil }
            failure = kind
            return self.task
        }
        // The caller goes on at once; the cancel reaches FoundationNetworking when its network thread
        // lets it, which a flooding server can delay by seconds, and meanwhile every chunk is dropped.
        if task != nil { done.signal() }
        if let task {
            let canceller = Thread { task.cancel() }
            canceller.qualityOfService = .userInteractive
            canceller.start()
        }
    }

    private var receivedText: String {
        let total = offset + received
        return offset > 0 ? "\(total) bytes received (\(received) in this request, after \(offset) from before)" : "\(total) bytes received"
    }

    private func deadlineMessage(_ deadline: Deadline) -> String {
        "the fetch's deadline of \(Self.format(deadline.seconds)) s passed with \(receivedText) of at most \(limit)"
    }

    private static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }

    /// Every 0.1 s: cancellation, the deadline, the idle timeout and the rate over the window; and the
    /// bytes so far to the observer.
    private func watch() {
        let cancelled = observer?.isCancelled == true
        let problem: TransferError.Kind? = lock.withLock {
            guard failure == nil else { return nil }
            if cancelled { return .cancelled }
            if let deadline, deadline.hasPassed { return .timedOut(deadlineMessage(deadline)) }
            guard watchesRate else { return nil }
            let now = DispatchTime.now()
            let idle = Double(now.uptimeNanoseconds - lastArrival.uptimeNanoseconds) / 1e9
            if idle >= limits.idleTimeout {
                return .timedOut("nothing received for \(Self.format(limits.idleTimeout)) s, \(receivedText)")
            }
            let elapsed = Double(now.uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            samples.append((elapsed, received))
            samples.removeAll { $0.0 < elapsed - limits.rateWindow - 0.2 }
            guard limits.minimumRate > 0, elapsed >= limits.rateWindow, let first = samples.first,
                elapsed - first.0 >= limits.rateWindow - 0.15
            else { return nil }
            let inWindow = received - first.1
            if Double(inWindow) < Double(limits.minimumRate) * (elapsed - first.0) {
                return .tooSlow(
                    "only \(inWindow) bytes in the last \(Self.format(limits.rateWindow)) s, below the minimum of \(limits.minimumRate) bytes/s; \(receivedText)"
                )
            }
            return nil
        }
        if let problem { fail(problem) }
        if let observer, case .file = sink, problem == nil { observer.transferred(lock.withLock { offset + received }) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            fail(.connection("no HTTP response"))
            return completionHandler(.cancel)
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers["\(key)"] = "\(value)" }
        let stated = http.expectedContentLength
        var problem: TransferError.Kind?
        lock.withLock {
            status = http.statusCode
            self.headers = headers
            lastArrival = .now()
            switch sink {
            case .memory:
                if method != "HEAD", stated > limit { problem = .tooLarge(limit: limit) }
            case .file(let file, let resumeOffset):
                if http.statusCode == 206, resumeOffset > 0, Self.rangeStart(headers) == resumeOffset {
                    offset = resumeOffset
                } else if http.statusCode == 200 {
                    offset = 0
                    do throws(TransferError) { try file.truncate() } catch { problem = error.kind }
                } else {
                    // Not a body to keep (a 416, a 206 for another range, an error): stop before reading it.
                    problem = .status(http.statusCode)
                }
                if problem == nil, stated > limit - offset { problem = .tooLarge(limit: limit) }
                // A download's length must be known before its body: with a Content-Length, the
                // network layer itself stops there, so no flood ever has to be cut off mid-body.
                if problem == nil, stated < 0 {
                    problem = .refused("the server states no Content-Length for the download; refused before reading it")
                }
            }
            if problem == nil, let encoding = Self.header("Content-Encoding", headers), encoding.lowercased() != "identity" {
                // Decoded on the fly, a body could grow far past its Content-Length (a compression bomb).
                problem = .refused(
                    "the server sent the body with Content-Encoding \(encoding), which was not asked for; refused before reading it")
            }
        }
        // Allowed even when refused: FoundationNetworking applies a `.cancel` here only when its network
        // queue is idle, which a flooding server keeps it from being; `cancel()` gets in sooner, and no
        // byte of the body is kept meanwhile.
        if let problem { fail(problem) }
        completionHandler(.allow)
    }

    private static func header(_ name: String, _ headers: [String: String]) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The first byte of `Content-Range: bytes FIRST-LAST/TOTAL`.
    private static func rangeStart(_ headers: [String: String]) -> Int64? {
        guard let range = header("Content-Range", headers)?.split(separator: " ").last?.split(separator: "-").first else { return nil }
        return Int64(range)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Kept under the lock, so once a failure is recorded no byte more is kept, and none is on its way.
        let problem: TransferError.Kind? = lock.withLock {
            guard failure == nil else { return nil }
            lastArrival = .now()
            if offset + received + Int64(data.count) > limit { return .tooLarge(limit: limit) }
            switch sink {
            case .memory:
                body.append(data)
            case .file(let file, _):
                do throws(TransferError) {
                    try file.write(data, at: offset + received)
                } catch {
                    return error.kind
                }
            }
            received += Int64(data.count)
            return nil
        }
        if problem == nil { observer?.received(Int64(data.count)) }
        if let problem { fail(problem) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.withLock {
            if failure == nil, let error {
                failure =
                    (error as? URLError)?.code == .timedOut
                    ? .timedOut("the connection timed out, \(receivedText)") : .connection(error.localizedDescription)
            }
        }
        done.signal()
    }
}

/// URLSession's delegate queue, run on FoundationNetworking's network thread itself.
///
/// FoundationNetworking hands each chunk it receives to the delegate queue without waiting for it to
/// be taken, so a server faster than the disk would pile chunks up in memory without end (the issue
/// measured 1 GB against a 17 MB artifact). Run inline, each chunk is written before the next is read
/// from the socket: TCP slows the server down, and memory holds one chunk. The delegate never waits
/// for the network thread (it cancels from a thread of its own), so this cannot deadlock.
///
/// Safe to share: it adds no state to `OperationQueue`, whose own `@unchecked Sendable` the compiler
/// asks a subclass to restate.
final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
    #if canImport(FoundationNetworking)
        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }
    #endif
}
