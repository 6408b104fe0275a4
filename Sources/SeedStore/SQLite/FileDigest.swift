import Crypto
import Foundation

/// The size and SHA-256 of a file, read in 1 MiB chunks.
public struct FileDigest: Sendable, Equatable {
    public var bytes: Int64
    /// 64 lowercase hex characters.
    public var sha256: String

    public init(bytes: Int64, sha256: String) {
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// - Throws: ``StoreError`` naming the file when it cannot be read.
    public init(of path: String) throws(StoreError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError(.notFound, path: path, "cannot open to compute its SHA-256; check the path and permissions")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var count: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                count += Int64(chunk.count)
            }
        } catch {
            throw StoreError(.io, path: path, "cannot read: \(error.localizedDescription)")
        }
        bytes = count
        sha256 = Data(hasher.finalize()).hexString
    }
}
