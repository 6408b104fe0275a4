import Crypto
import Foundation
import GRDB

extension SeedInstaller {
    /// Downloads, checks and inflates the artifact; returns the installed store's file name in `directory`.
    func download(
        _ artifact: Manifest.FileEntry, store: Manifest.FileEntry, from channel: ReleaseChannel, into directory: String,
        dataset: String, dataVersion: Int64
    ) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let remote = ReleasePointer.artifactPath(sha256: artifact.sha256)
        // Kept across failed attempts, so the next try resumes; removed once it is used.
        let partial = (directory as NSString).appendingPathComponent(".\(dataset)-\(dataVersion).sqlite.gz.part")
        let size = try channel.download(remote, to: partial, maxBytes: artifact.bytes)
        let sha = try FileDigest(of: partial).sha256
        guard size == artifact.bytes, sha == artifact.sha256 else {
            try? FileManager.default.removeItem(atPath: partial)
            throw InstallError(.checksum, "\(channel.describe(remote)): \(size) bytes with SHA-256 \(sha), the manifest says \(artifact.bytes) bytes with \(artifact.sha256); the artifact was changed or damaged")
        }
        let name = "\(dataset)-\(dataVersion).sqlite"
        let temporary = AtomicFile.temporaryPath(for: (directory as NSString).appendingPathComponent(name))
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        var hasher = SHA256()
        let inflated: Int64
        do {
            inflated = try GzipInflater.inflate(partial, to: temporary, maxOutputBytes: store.bytes) { hasher.update(bufferPointer: $0) }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw InstallError(.checksum, "\(channel.describe(remote)): \(error.reason)")
        }
        try? FileManager.default.removeItem(atPath: partial)
        let storeSHA = Data(hasher.finalize()).hexString
        guard inflated == store.bytes, storeSHA == store.sha256 else {
            throw InstallError(.checksum, "\(channel.describe(remote)): the inflated store has \(inflated) bytes with SHA-256 \(storeSHA), the manifest says \(store.bytes) with \(store.sha256)")
        }
        let queue = try StoreFile.openReadOnly(temporary)
        let quick = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        try queue.close()
        guard quick == ["ok"] else {
            throw InstallError(.checksum, "\(temporary): quick_check failed: \(quick.prefix(3).joined(separator: "; "))")
        }
        try AtomicFile.commit(temporary, to: (directory as NSString).appendingPathComponent(name), mode: 0o444)
        return name
    }

}

/// Why a release was refused; the installed seed stays in use.
public struct InstallError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case noRelease, signature, expired, rollback, model, checksum
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(message) (the installed seed, if any, stays in use)" }
}

/// `DIR/<dataset>.current`: which installed store is in use, switched atomically.
struct InstalledSeed {
    struct Current {
        var store: String
        var dataVersion: Int64
    }

    let directory: String
    let dataset: String

    var currentFile: String { (directory as NSString).appendingPathComponent("\(dataset).current") }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    var current: Current? {
        guard let data = FileManager.default.contents(atPath: currentFile), let text = String(data: data, encoding: .utf8),
            let object = (try? JSONValue(jsonText: text))?.objectValue, let store = object["store"]?.stringValue,
            let version = object["dataVersion"]?.integerValue
        else { return nil }
        return Current(store: store, dataVersion: version)
    }

    /// Points `.current` at the new store, then removes the stores it no longer names.
    func switchTo(storeFile: String, dataVersion: Int64, contentDigest: String) throws {
        let value: JSONValue = .object(["store": .string(storeFile), "dataVersion": .integer(dataVersion), "contentDigest": .string(contentDigest)])
        try AtomicFile.replace(currentFile, mode: 0o644) { temporary throws(StoreError) in
            guard FileManager.default.createFile(atPath: temporary, contents: Data((value.prettyText + "\n").utf8)) else {
                throw StoreError(.io, path: temporary, "cannot write; check the folder is writable")
            }
        }
        let others = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in others where name != storeFile && name.hasPrefix("\(dataset)-") && name.hasSuffix(".sqlite")
            && name.dropFirst(dataset.count + 1).dropLast(7).allSatisfy(\.isNumber) {
            try? FileManager.default.removeItem(atPath: path(name))
        }
    }
}
