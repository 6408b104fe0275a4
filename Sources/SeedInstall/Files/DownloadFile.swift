import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file a download or an install writes, opened so that only a regular file of this process's own,
/// with one link, is ever written.
///
/// A symlink, a hard link, a folder or another user's file standing at the name is never written
/// through: it is unlinked (the name only, never what it points to, and the name is in the caller's
/// own folder) and the file is created afresh with `O_CREAT | O_EXCL | O_NOFOLLOW`, which fails
/// rather than follow anything put back in the meantime. Every later read and write goes through the
/// descriptor, so renaming or replacing the name afterwards changes nothing that is read or written.
///
/// Safe to share: `running`, its one mutable property, is read and written only under `lock`; the rest are `let`s, and
/// reads and writes go through `pread`/`pwrite` at explicit offsets.
package final class DownloadFile: @unchecked Sendable {
    package let path: String
    let descriptor: Int32
    private let device: UInt64
    private let inode: UInt64
    /// SHA-256 of the bytes written in order from the start, while every write continued the last
    /// (a fresh download): ``digest()`` then needs no second read of the file.
    private var running = RunningDigest()
    private let lock = NSLock()

    private struct RunningDigest {
        var hasher = SHA256()
        var bytes: Int64 = 0
        var isValid = true
    }

    /// Takes `descriptor` (closed on failure and when the file goes) when it is a plain file of this user's with one link.
    init(path: String, descriptor: Int32) throws(TransferError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, Self.isPlainOwnFile(info) else {
            close(descriptor)
            throw TransferError(.file("not a plain file of this user's with one link; refusing to write it"), method: "open", url: path)
        }
        self.path = path
        self.descriptor = descriptor
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    deinit { close(descriptor) }

    /// Creates `path`, refusing anything already there.
    package static func create(_ path: String, mode: mode_t = 0o600) throws(TransferError) -> DownloadFile {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw error("cannot create", path) }
        return try DownloadFile(path: path, descriptor: fd)
    }

    /// Opens a partial file left by an earlier try to go on from its end, or creates it; anything but
    /// a plain file of this user's with one link at `path` is unlinked first and never written.
    package static func openForResume(_ path: String) throws(TransferError) -> DownloadFile {
        var info = stat()
        if lstat(path, &info) == 0 {
            if isPlainOwnFile(info) {
                let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
                var opened = stat()
                if fd >= 0, fstat(fd, &opened) == 0, opened.st_dev == info.st_dev, opened.st_ino == info.st_ino {
                    return try DownloadFile(path: path, descriptor: fd)
                }
                if fd >= 0 { close(fd) }
            }
            unlink(path)
        }
        return try create(path)
    }

    private static func isPlainOwnFile(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFREG && info.st_nlink == 1 && info.st_uid == geteuid()
    }

    static func error(_ what: String, _ path: String) -> TransferError {
        TransferError(
            .file("\(what): \(String(cString: strerror(errno))); check nothing else stands at that name and the folder is writable"),
            method: "open", url: path)
    }

    /// The file's size now.
    package var size: Int64 {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Empties the file, to write it again from the start.
    package func truncate() throws(TransferError) {
        lock.withLock { running = RunningDigest() }
        guard ftruncate(descriptor, 0) == 0 else { throw Self.error("cannot truncate", path) }
    }

    /// Writes every byte at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(TransferError) {
        lock.withLock {
            if running.isValid && offset == running.bytes {
                running.hasher.update(bufferPointer: bytes)
                running.bytes += Int64(bytes.count)
            } else {
                running.isValid = false
            }
        }
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.error("cannot write; check free space", path)
            }
            done += count
        }
    }

    func write(_ data: Data, at offset: Int64) throws(TransferError) {
        let failure: TransferError? = data.withUnsafeBytes { bytes in
            do throws(TransferError) {
                try write(bytes, at: offset)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    package func sync() throws(TransferError) {
        guard fsync(descriptor) == 0 else { throw Self.error("cannot sync", path) }
    }

    /// Size and SHA-256 of the file: hashed as it was written when it was written from its start in
    /// order and nothing else, else read back through the descriptor.
    package func digest() throws(TransferError) -> FileDigest {
        let size = self.size
        if let hashed = lock.withLock({ running.isValid && running.bytes == size ? running.hasher : nil }) {
            return FileDigest(bytes: size, sha256: Data(hashed.finalize()).hexString)
        }
        var hasher = SHA256()
        let bytes = try Self.forEachChunk(of: descriptor, path: path) { chunk, _ in hasher.update(bufferPointer: chunk) }
        return FileDigest(bytes: bytes, sha256: Data(hasher.finalize()).hexString)
    }

    /// Reads the file open at `descriptor` from its start in 1 MiB chunks, handing each to `body`
    /// with its offset; returns the bytes read.
    static func forEachChunk(
        of descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer, Int64) throws(TransferError) -> Void
    ) throws(TransferError) -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let count = pread(descriptor, buffer.baseAddress!, buffer.count, off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw error("cannot read", path)
            }
            if count == 0 { return offset }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), offset)
            offset += Int64(count)
        }
    }

    /// Unlinks the name if it still is this file (never something put there since).
    package func remove() {
        var info = stat()
        if lstat(path, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode { unlink(path) }
    }
}
