import Crypto
import Foundation

/// SHA-256 of the source files, computed on another core while the load runs.
final class SourceDigests: @unchecked Sendable {
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var digests: [String: String] = [:]
    private var failure: Error?

    init(paths: [String]) {
        for path in paths {
            DispatchQueue.global().async(group: group) { [self] in
                do {
                    let digest = try Self.sha256(ofFile: path)
                    lock.withLock { digests[path] = digest }
                } catch {
                    lock.withLock { failure = error }
                }
            }
        }
    }

    /// Waits for every digest; path → 64 lowercase hex characters.
    func wait() throws -> [String: String] {
        group.wait()
        return try lock.withLock {
            if let failure { throw failure }
            return digests
        }
    }

    /// Hashes a file in 1 MiB reads.
    static func sha256(ofFile path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw IngestError(.missingInput, file: path, "cannot open to compute its SHA-256")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
