/// A failed transfer, naming the URL, the method and the status, and whether trying again may help.
public struct TransferError: Error, Sendable, CustomStringConvertible {
    /// How the transfer failed.
    public enum Kind: Sendable, Equatable {
        /// The server answered with this status.
        case status(Int)
        /// The connection failed or dropped.
        case connection(String)
        /// The body is larger than allowed.
        case tooLarge(limit: Int64)
        /// A local file could not be read or written.
        case file(String)
        /// The fetch's deadline passed, or nothing arrived for the idle timeout; says what was received.
        case timedOut(String)
        /// Fewer bytes arrived over the rate window than the minimum rate asks; says what was received.
        case tooSlow(String)
        /// The answer's headers make its body unusable (no stated length, an encoding not asked for).
        case refused(String)
        /// The fetch was cancelled (its task, or `TransferObserver.cancel()`); nothing of it is kept.
        case cancelled
    }

    /// How the transfer failed.
    public let kind: Kind
    /// The HTTP method (`GET`, `HEAD`, `PUT`, …) or, for a folder, the operation.
    public let method: String
    /// The URL or path of the object transferred.
    public let url: String

    /// An error of `kind` for `method` on `url`.
    package init(_ kind: Kind, method: String, url: String) {
        self.kind = kind
        self.method = method
        self.url = url
    }

    /// 5xx, 408, 429 and dropped connections may pass on a later try; other answers will not.
    public var isTransient: Bool {
        switch kind {
        // 501 Not Implemented and 505 say what the server cannot do, not that it is having trouble.
        case .status(let code): (code >= 500 && code != 501 && code != 505) || code == 408 || code == 429
        case .connection, .timedOut, .tooSlow: true
        case .tooLarge, .file, .refused, .cancelled: false
        }
    }

    /// Transient, and worth another try within the same fetch: a passed deadline or a crawling server is not.
    public var isRetryable: Bool {
        switch kind {
        case .timedOut, .tooSlow: false
        default: isTransient
        }
    }

    /// The method, the URL, what happened, and what to do (try again, check the URL, raise the deadline).
    public var description: String {
        switch kind {
        case .status(let code) where (code == 405 || code == 501) && ["PUT", "MKCOL", "MOVE", "DELETE"].contains(method):
            "\(method) \(url): HTTP \(code); the server does not accept \(method): publish to a WebDAV server (nginx: dav_methods PUT DELETE MKCOL COPY MOVE; create_full_put_path on;), a folder or S3"
        case .status(let code):
            "\(method) \(url): HTTP \(code)\(isTransient ? "; the server may recover, try again later" : "; check the URL and the server's permissions")"
        case .connection(let why): "\(method) \(url): \(why); check the server is reachable, then try again"
        case .tooLarge(let limit):
            "\(method) \(url): the body is larger than \(limit) bytes; refused (the server sends more than the release states)"
        case .timedOut(let why): "\(method) \(url): \(why); try again later, or raise the deadline (seedbuild fetch --deadline SECONDS)"
        case .tooSlow(let why): "\(method) \(url): \(why); the server or the connection is too slow, try again later"
        case .file(let why): "\(method) \(url): \(why)"
        case .refused(let why): "\(method) \(url): \(why); serve the file as it is stored, with its Content-Length"
        case .cancelled: "\(method) \(url): cancelled"
        }
    }
}
