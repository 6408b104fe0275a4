import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DownloadFile {
    /// Creates `path` holding `source`'s bytes: a clone sharing its blocks where the file system
    /// has them (APFS `clonefile`, Btrfs and XFS `FICLONE`), else a copy read through in 1 MiB chunks.
    ///
    /// A clone costs no time or space whatever the store's size; only the pages written later are
    /// new. `path` is created as ``create(_:mode:)`` creates it: never through anything standing there.
    /// - Throws: ``TransferError`` (`file`) naming `source` or `path`.
    package static func clone(of source: String, to path: String, mode: mode_t = 0o644) throws(TransferError) -> DownloadFile {
        #if canImport(Darwin)
        // clonefile creates the name itself and fails if anything is there (CLONE_NOFOLLOW: a symlink
        // is not followed); the clone takes the source's mode — an installed store's 0444, which no
        // one but root may open for writing — so the mode is set before it is opened.
        if clonefile(source, path, UInt32(CLONE_NOFOLLOW)) == 0 {
            guard fchmodat(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW) == 0 else {
                let failure = error("cannot set the clone's mode", path)
                unlink(path)
                throw failure
            }
            let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else {
                let failure = error("cannot open the clone", path)
                unlink(path)
                throw failure
            }
            return try DownloadFile(path: path, descriptor: fd)
        }
        #endif
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw error("cannot open to copy it", source) }
        defer { close(input) }
        let file = try create(path, mode: mode)
        #if os(Linux)
        // FICLONE (_IOW(0x94, 9, int)): the whole file, sharing blocks; EOPNOTSUPP, EXDEV or EINVAL
        // where the file system cannot, and then it is copied.
        if ioctl(file.descriptor, UInt(0x4004_9409), input) == 0 { return file }
        #endif
        do {
            _ = try forEachChunk(of: input, path: source) { chunk, offset throws(TransferError) in try file.write(chunk, at: offset) }
        } catch {
            file.remove()
            throw error
        }
        return file
    }
}
