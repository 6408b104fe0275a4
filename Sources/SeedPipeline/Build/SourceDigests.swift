import Foundation
import SeedStore

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
                    let digest = try FileDigest(of: path).sha256
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

}
