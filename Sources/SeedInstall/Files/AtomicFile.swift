import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file under a temporary name beside its final one, syncs it, then renames it into place.
///
/// A failure at any step removes the temporary file, so no half-written file ever stands under the final name.
package enum AtomicFile {
    /// A fresh temporary path in the same folder as `path` (so the rename stays on one file system).
    package static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString.prefix(8))").path
    }

    /// Refuses, before any work, an output whose folder is missing, is a file, or cannot be written:
    /// the temporary file beside it could not be created (SQLite would say only "unable to open
    /// database file", without the path).
    /// - Throws: ``StoreError`` (`io`) naming the output and the folder.
    package static func checkFolder(for path: String) throws(StoreError) {
        if let problem = folderProblem(URL(fileURLWithPath: path).deletingLastPathComponent().path) {
            throw StoreError(.io, path: path, "cannot write here: \(problem); create the folder or choose another path")
        }
    }

    /// Why files cannot be written in `folder` ("… does not exist", "… is a file, not a folder",
    /// "… is not writable (…)"), or nil when nothing visible stands in the way.
    package static func folderProblem(_ folder: String) -> String? {
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) { return "\(folder) does not exist" }
        if !isFolder.boolValue { return "\(folder) is a file, not a folder" }
        if access(folder, W_OK) != 0 { return "\(folder) is not writable (\(String(cString: strerror(errno))))" }
        return nil
    }

    /// Copies `source` beside `output` under a temporary name (writable; fold a store's write-ahead
    /// log into it first), lets `change` work on the copy, and renames it to `output` with `mode`; a failure
    /// leaves nothing under `output` and `source` untouched. The copy is a clone where the file system
    /// has them (``DownloadFile/clone(of:to:mode:)``): only the pages `change` writes are new.
    package static func changeCopy<T>(of source: String, to output: String, mode: mode_t, _ change: (String) throws -> T) throws -> T {
        guard FileManager.default.fileExists(atPath: source) else {
            throw StoreError(.notFound, path: source, "no such file; check the path")
        }
        try checkFolder(for: output)
        let temporary = temporaryPath(for: output)
        defer { unlink(temporary) }
        do {
            _ = try DownloadFile.clone(of: source, to: temporary, mode: 0o644)
        } catch {
            throw StoreError(.io, path: output, "cannot copy \(source) beside it: \(error)")
        }
        let result = try change(temporary)
        try commit(temporary, to: output, mode: mode)
        return result
    }

    /// Syncs `temporary`, sets its mode, renames it to `path` and syncs the folder.
    package static func commit(_ temporary: String, to path: String, mode: mode_t?) throws(StoreError) {
        let fd = try openSynced(temporary)
        defer { close(fd) }
        if let mode, fchmod(fd, mode) != 0 { throw ioError(temporary, "cannot set file mode") }
        guard rename(temporary, path) == 0 else { throw ioError(path, "cannot rename \(temporary) into place") }
        let folder = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY)
        if folder >= 0 {
            // The rename is durable only once the folder entry is synced.
            fsync(folder)
            close(folder)
        }
    }

    /// The file opened and synced; the caller closes the descriptor. O_NOFOLLOW: a symlink put at
    /// the temporary name is never synced or chmod-ed through.
    package static func openSynced(_ path: String) throws(StoreError) -> Int32 {
        let fd = open(path, O_RDONLY | O_NOFOLLOW)
        guard fd >= 0 else { throw ioError(path, "cannot open to sync") }
        guard fsync(fd) == 0 else {
            let error = ioError(path, "cannot sync")
            close(fd)
            throw error
        }
        return fd
    }

    package static func ioError(_ path: String, _ what: String) -> StoreError {
        StoreError(.io, path: path, "\(what): \(String(cString: strerror(errno))); check the folder exists, is writable and has free space")
    }
}
