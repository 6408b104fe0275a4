import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The size and SHA-256 of a file, read in 1 MiB chunks.
package struct FileDigest: Sendable, Equatable {
    package var bytes: Int64
    /// 64 lowercase hex characters.
    package var sha256: String

    package init(bytes: Int64, sha256: String) {
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// - Throws: ``StoreError`` naming the file when it cannot be read.
    package init(of path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError(.notFound, path: path, "cannot open to compute its SHA-256; check the path and permissions")
        }
        defer { close(descriptor) }
        // One buffer reused (no allocation per chunk): hashing is then as fast as the file reads.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var count: Int64 = 0
        while true {
            let got = read(descriptor, buffer.baseAddress!, buffer.count)
            if got < 0 {
                if errno == EINTR { continue }
                throw StoreError(.io, path: path, "cannot read: \(String(cString: strerror(errno)))")
            }
            if got == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            count += Int64(got)
        }
        bytes = count
        sha256 = Data(hasher.finalize()).hexString
    }
}

extension FileDigest {
    /// The digest of bytes held in memory.
    package init(of data: Data) {
        self.init(bytes: Int64(data.count), sha256: Data(SHA256.hash(data: data)).hexString)
    }

    /// Whether these are the size and SHA-256 stated for a file; when not, ``mismatch(stated:)`` says how.
    package func matches(bytes: Int64, sha256: String) -> Bool {
        self.bytes == bytes && self.sha256 == sha256
    }

    /// `N bytes with SHA-256 X, the manifest says M bytes with Y`.
    package func mismatch(bytes stated: Int64, sha256 statedSHA: String) -> String {
        "\(bytes) bytes with SHA-256 \(sha256), the manifest says \(stated) bytes with \(statedSHA)"
    }
}
