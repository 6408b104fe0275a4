import Crypto
import Foundation
import SeedStore
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
    /// Replaces the mutable pointer.
    func putPointer(_ data: Data, at path: String) throws
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
                throw PublishError(url: describe(relative), method: "write", status: nil, "already exists with other bytes; immutable objects are never replaced")
            }
            return
        }
        try FileManager.default.createDirectory(atPath: (path(relative) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let temporary = AtomicFile.temporaryPath(for: path(relative))
        do {
            try FileManager.default.copyItem(atPath: file, toPath: temporary)
            try AtomicFile.commit(temporary, to: path(relative), mode: 0o444)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw PublishError(url: describe(relative), method: "write", status: nil, "\(error)")
        }
    }

    func putPointer(_ data: Data, at relative: String) throws {
        try FileManager.default.createDirectory(atPath: (path(relative) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try writeAtomically(data, to: path(relative), mode: 0o644)
    }

    func delete(_ relative: String) throws {
        try? FileManager.default.removeItem(atPath: path(relative))
    }

    func list(_ folder: String) throws -> [String]? {
        (try? FileManager.default.contentsOfDirectory(atPath: path(folder))) ?? []
    }
}

/// A publish that failed: the URL, the method, the status, and whether it is worth retrying (exit 75) or not (74).
public struct PublishError: Error, Sendable, CustomStringConvertible {
    public let url: String
    public let method: String
    public let status: Int?
    public let message: String
    public let isTransient: Bool

    public init(url: String, method: String, status: Int?, _ message: String, transient: Bool = false) {
        self.url = url
        self.method = method
        self.status = status
        self.message = message
        self.isTransient = transient
    }

    init(_ error: TransferError) {
        var status: Int?
        if case .status(let code) = error.kind { status = code }
        self.init(url: error.url, method: error.method, status: status, error.description, transient: error.isTransient)
    }

    public var description: String {
        let status = status.map { " (HTTP \($0))" } ?? ""
        return "\(method) \(url)\(status): \(message). The previous release is untouched."
    }
}
