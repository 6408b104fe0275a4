import Crypto
import Foundation
import SeedStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Somewhere releases are published: a folder, or an HTTP server accepting WebDAV `PUT` and `MOVE`.
protocol PublishDestination {
    /// The object's bytes, or nil when absent (small objects only).
    func read(_ path: String, maxBytes: Int64) throws -> Data?
    /// Size and SHA-256 of an object, or nil when absent.
    func checksum(_ path: String) throws -> (Int64, String)?
    /// Writes an object that never changes once there: an existing object with the same bytes is fine, different bytes are an error.
    func putImmutable(file: String, sha256: String, at path: String) throws
    /// Replaces `latest.json` with what `decide` makes of the current one (nil: leave it), so that no
    /// other publish replaces it between the read and the write: a folder holds a lock file, WebDAV a
    /// lock object, S3 writes on condition that the ETag read is still there.
    func updatePointer(_ decide: (Data?) throws -> Data?) throws
    /// Writes a replaceable object beside the pointer (the channel page), cached as the pointer is.
    func putPage(_ data: Data, at path: String) throws
    func delete(_ path: String) throws
    /// Names in a folder of the channel (for pruning), or nil when the destination cannot list.
    func list(_ folder: String) throws -> [String]?
    func describe(_ path: String) -> String
}

/// Publishing to a folder: temporary name, fsync, rename.
struct DirectoryDestination: PublishDestination {
    let root: String

    func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }

    func describe(_ relative: String) -> String { path(relative) }

    func read(_ relative: String, maxBytes: Int64) throws -> Data? {
        try ReleaseChannel(root).read(relative, maxBytes: maxBytes)
    }

    func checksum(_ relative: String) throws -> (Int64, String)? {
        let file = path(relative)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        let digest = try FileDigest(of: file)
        return (digest.bytes, digest.sha256)
    }

    func putImmutable(file: String, sha256: String, at relative: String) throws {
        if let (_, existing) = try checksum(relative) {
            guard existing == sha256 else {
                throw PublishError(
                    url: describe(relative), method: "write", status: nil,
                    "already exists with other bytes; immutable objects are never replaced")
            }
            return
        }
        try createOutputFolder((path(relative) as NSString).deletingLastPathComponent)
        let temporary = AtomicFile.temporaryPath(for: path(relative))
        do {
            try FileManager.default.copyItem(atPath: file, toPath: temporary)
            try AtomicFile.commit(temporary, to: path(relative), mode: 0o444)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw PublishError(
                url: describe(relative), method: "write", status: nil, "\(systemReason(error)); check the folder is writable and has room")
        }
    }

    /// Waits this long for another publish to the same folder to let go of `.publish.lock`.
    var lockWait: TimeInterval = 120

    /// Under `flock` on the channel's `.publish.lock`; a lock held by a killed publish goes with its process.
    func updatePointer(_ decide: (Data?) throws -> Data?) throws {
        try createOutputFolder(root)
        let lockPath = path(".publish.lock")
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw PublishError(
                url: lockPath, method: "lock", status: nil,
                "cannot open the channel's lock: \(String(cString: strerror(errno))); check the folder is writable")
        }
        defer { close(fd) }
        let start = Date()
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard Date().timeIntervalSince(start) < lockWait else {
                throw PublishError(
                    url: lockPath, method: "lock", status: nil,
                    "another publish to this channel held its lock for \(Int(lockWait)) s; try again later", transient: true)
            }
            usleep(20_000)
        }
        defer { flock(fd, LOCK_UN) }
        guard let data = try decide(try read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes)) else { return }
        try writeAtomically(data, to: path(ReleasePointer.fileName), mode: 0o644)
    }

    func putPage(_ data: Data, at relative: String) throws {
        do {
            try writeAtomically(data, to: path(relative), mode: 0o644)
        } catch {
            throw PublishError(
                url: describe(relative), method: "write", status: nil, "\(systemReason(error)); check the folder is writable and has room")
        }
    }

    func delete(_ relative: String) throws {
        try? FileManager.default.removeItem(atPath: path(relative))
    }

    func list(_ folder: String) throws -> [String]? {
        (try? FileManager.default.contentsOfDirectory(atPath: path(folder))) ?? []
    }
}

/// A publish that failed: the URL, the method, the status, and whether it is worth retrying (exit 75),
/// the build itself was refused (65: a rollback), or not (74).
public struct PublishError: Error, Sendable, CustomStringConvertible {
    public let url: String
    public let method: String
    public let status: Int?
    public let message: String
    public let isTransient: Bool
    /// The destination refused what was built (a data version not newer than the published one),
    /// not the transfer: building again differently is the fix.
    public let isRefusal: Bool

    public init(url: String, method: String, status: Int?, _ message: String, transient: Bool = false, refusal: Bool = false) {
        self.url = url
        self.method = method
        self.status = status
        self.message = message
        self.isTransient = transient
        self.isRefusal = refusal
    }

    init(_ error: TransferError) {
        var status: Int?
        if case .status(let code) = error.kind { status = code }
        // The description starts with the method and URL this error prints itself.
        let prefix = "\(error.method) \(error.url): "
        let description = error.description
        let message = description.hasPrefix(prefix) ? String(description.dropFirst(prefix.count)) : description
        self.init(url: error.url, method: error.method, status: status, message, transient: error.isTransient)
    }

    public var description: String {
        let status = status.map { " (HTTP \($0))" } ?? ""
        return "\(method) \(url)\(status): \(message). The previous release is untouched."
    }
}
