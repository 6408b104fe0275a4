import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension DownloadFile {
    /// Creates `path` holding `source`'s bytes: a clone sharing its blocks where the file system
    /// has them (APFS `clonefile`, Btrfs and XFS `FICLONE`), else a copy (in the kernel with
    /// `copy_file_range` on Linux, else read through in 1 MiB chunks).
    ///
    /// A clone costs no time or space whatever the store's size; only the pages written later are
    /// new. A copy costs the whole file: `copying` hears the bytes copied so far of the total (from
    /// 0), and is never called for a clone. `path` is created as ``create(_:mode:)`` creates it:
    /// never through anything standing there.
    /// - Throws: ``TransferError`` (`file`) naming `source` or `path`.
    package static func clone(
        of source: String, to path: String, mode: mode_t = 0o644, copying: ((_ done: Int64, _ total: Int64) -> Void)? = nil
    ) throws(TransferError) -> DownloadFile {
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
        var status = stat()
        let total = fstat(input, &status) == 0 ? Int64(status.st_size) : 0
        copying?(0, total)
        do {
            try copy(input, source: source, to: file, total: total, copying: copying)
        } catch {
            file.remove()
            throw error
        }
        return file
    }

    /// Copies the file open at `input` into `file` from its start: in the kernel where it can
    /// (`copy_file_range`, Linux), else through a buffer.
    private static func copy(
        _ input: Int32, source: String, to file: DownloadFile, total: Int64, copying: ((Int64, Int64) -> Void)?
    ) throws(TransferError) {
        #if os(Linux)
            var done: Int64 = 0
            while let copyFileRange = Self.copyFileRange {
                // 16 MiB a call: the progress moves, and a copy never holds more than the kernel's pages.
                let count = copyFileRange(input, nil, file.descriptor, nil, 16 << 20, 0)
                if count > 0 {
                    done += Int64(count)
                    copying?(done, total)
                    continue
                }
                if count == 0 { return }
                if errno == EINTR { continue }
                // Not between these files (an old kernel, another file system) before a byte was
                // copied: copied through a buffer instead. A failure midway is an error.
                guard done == 0, [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(errno) else { throw error("cannot copy the store", source) }
                break
            }
        #endif
        _ = try forEachChunk(of: input, path: source) { chunk, offset throws(TransferError) in
            try file.write(chunk, at: offset)
            copying?(offset + Int64(chunk.count), total)
        }
    }

    #if os(Linux)
        /// glibc's `copy_file_range` (2.27 and later), which the Glibc module does not declare: looked up
        /// by name; nil where the C library has none, and the copy goes through a buffer.
        private static let copyFileRange:
            (@convention(c) (Int32, UnsafeMutablePointer<off_t>?, Int32, UnsafeMutablePointer<off_t>?, Int, UInt32) -> Int)? = {
                guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "copy_file_range") else { return nil }
                return unsafeBitCast(
                    symbol,
                    to: (@convention(c) (Int32, UnsafeMutablePointer<off_t>?, Int32, UnsafeMutablePointer<off_t>?, Int, UInt32) -> Int).self
                )
            }()
    #endif
}
