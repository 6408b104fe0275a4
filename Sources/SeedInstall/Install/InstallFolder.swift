import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The app's install folder for one dataset: the only place an install writes, creates or removes.
///
/// Names written there are built from a dataset name checked by ``ReleaseNames/isValidDataset(_:)``
/// and a data version; an install holds `.<dataset>.lock` (`flock`) from reading `.current` to
/// switching it, and removes what a killed install left behind before it starts.
struct InstallFolder {
    let directory: String
    let dataset: String

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    func partialName(dataVersion: Int64) -> String { ".\(dataset)-\(dataVersion).sqlite.gz.part" }

    /// Where a delta to `dataVersion` is downloaded; never resumed, removed once read or refused.
    func deltaPartialName(dataVersion: Int64) -> String { ".\(dataset)-\(dataVersion).delta.gz.part" }

    /// Creates the folder if needed and takes the dataset's install lock, waiting for another install
    /// into the same folder to end, but never past `deadline`.
    func lock(until deadline: Deadline) throws(TransferError) -> FolderLock {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw TransferError(.file("cannot create the install folder: \(error.localizedDescription)"), method: "install", url: directory)
        }
        let file = path(".\(dataset).lock")
        var fd = open(file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0, errno == ELOOP {
            // A symlink at the lock's name: never followed; the name is replaced by a file.
            unlink(file)
            fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else {
            throw TransferError(
                .file("cannot open the install lock: \(String(cString: strerror(errno))); check the folder is writable"), method: "install",
                url: file)
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if deadline.hasPassed {
                close(fd)
                throw TransferError(
                    .timedOut("another install into this folder held \(file) until the fetch's deadline of \(deadline.seconds) s"),
                    method: "install", url: directory)
            }
            usleep(50_000)
        }
        return FolderLock(descriptor: fd)
    }

    /// Removes partial downloads of other data versions, deltas, and temporary files of this dataset
    /// (a copy a delta was being applied to, its journal) left by a killed install (hold the lock);
    /// `keeping` is the partial download this install goes on with.
    func removeLeftovers(keeping: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name != keeping && isLeftover(name) {
            // unlink removes the name only: a symlink's target is never touched.
            unlink(path(name))
        }
    }

    private func isLeftover(_ name: String) -> Bool {
        let versioned = ".\(dataset)-"
        for suffix in [".sqlite.gz.part", ".delta.gz.part"] where name.hasPrefix(versioned) && name.hasSuffix(suffix) {
            return name.dropFirst(versioned.count).dropLast(suffix.count).allSatisfy(\.isNumber)
        }
        if name.hasPrefix(versioned), let range = name.range(of: ".sqlite.tmp-") {
            return name[name.index(name.startIndex, offsetBy: versioned.count)..<range.lowerBound].allSatisfy(\.isNumber)
        }
        return name.hasPrefix(".\(dataset).current.tmp-")
    }
}

/// Holds an install lock until released.
final class FolderLock {
    private let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// Checks on names and fields a manifest or pointer gives before any of them is used in a path.
package enum ReleaseNames {
    /// A dataset name usable as a file name in the app's folder: a letter or digit first, then
    /// letters, digits, `.`, `_` or `-`, at most 100 characters, no `..`.
    package static func isValidDataset(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 100, !name.contains("..") else { return false }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        return CharacterSet.alphanumerics.contains(first) && first.isASCII && name.unicodeScalars.allSatisfy(allowed.contains)
    }

    /// 64 lowercase hex characters.
    package static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
