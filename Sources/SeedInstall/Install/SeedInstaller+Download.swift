import Foundation
import SeedModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SeedInstaller {
    /// Downloads, checks and inflates the artifact; returns the installed store's file name in the folder
    /// and its SHA-256 as installed. Hold the folder's lock. When `run` is cancelled, the partial
    /// download and the temporary store are removed and `CancellationError` is thrown.
    func download(
        _ artifact: Manifest.FileEntry, store: Manifest.FileEntry, manifest: Manifest, from channel: ReleaseChannel,
        into folder: InstallFolder, dataVersion: Int64, run: InstallRun, restampFor model: Model? = nil
    ) throws -> InstalledFile {
        let remote = ReleasePointer.artifactPath(sha256: artifact.sha256)
        let name = "\(folder.dataset)-\(dataVersion).sqlite"
        let temporary = AtomicFile.temporaryPath(for: folder.path(name))
        defer { unlink(temporary) }
        var output: DownloadFile?
        var written: Int64 = 0
        let inflate = { (inflate: (DownloadFile, (UnsafeRawBufferPointer) -> Void) throws(GzipError) -> Int64) throws -> Int64 in
            let file = try DownloadFile.create(temporary, mode: 0o644)
            output = file
            run.report(.inflating, 0, of: store.bytes)
            return try inflate(file) { chunk in
                written += Int64(chunk.count)
                run.report(.inflating, written, of: store.bytes)
            }
        }
        let inflated: Int64
        if case .directory = channel.location {
            inflated = try inflateInPlace(artifact, store: store, from: channel, remote: remote, folder: folder, run: run, inflate: inflate)
        } else {
            inflated = try downloadAndInflate(
                artifact, store: store, from: channel, remote: remote, folder: folder, dataVersion: dataVersion, run: run, inflate: inflate)
        }
        guard let output else { throw InstallError(.checksum, "\(channel.describe(remote)): nothing inflated") }
        try run.checkCancellation()
        func mismatch(_ bytes: Int64, _ sha256: String) -> InstallError {
            InstallError(
                .checksum,
                "\(channel.describe(remote)): the inflated store has \(bytes) bytes with SHA-256 \(sha256), the manifest says \(store.bytes) with \(store.sha256)"
            )
        }
        guard inflated == store.bytes else { throw mismatch(inflated, "-") }
        // Both checks read the store back from the page cache at once: its SHA-256 on one core while
        // quick_check runs on the other (inflating kept both busy, so hashing there cost the inflate
        // time), and the store reaches the disk meanwhile. A wrong hash is reported before anything
        // quick_check finds.
        let syncing = BackgroundWork { () throws -> Void in try output.sync() }
        let hashing = BackgroundWork { () throws -> FileDigest in try FileDigest(of: temporary) }
        run.report(.checkingStore)
        let checked = Swift.Result { try checkStore(temporary, against: manifest, url: channel.describe(remote)) }
        let digest = try hashing.value()
        guard digest.bytes == store.bytes, digest.sha256 == store.sha256 else { throw mismatch(digest.bytes, digest.sha256) }
        try checked.get()
        try syncing.value()
        try run.checkCancellation()
        return try finishInstall(temporary, as: name, in: folder, checked: digest, hashed: true, restampFor: model, run: run) { error in
            InstallError(.model, "\(channel.describe(remote)): cannot stamp the seed for the app's model: \(error)")
        }
    }

    /// How every install ends, by the artifact or by a delta, once the store at `temporary` (this
    /// install's own file) is checked: re-stamped for the app's model when there is one, checked
    /// entity by entity (and then hashed again when it was hashed: a later delta's base must be the
    /// file as re-stamped), synced and renamed to `name`, read-only.
    /// - Parameters:
    ///   - checked: its size and SHA-256 as checked (nil when not hashed, or hashed only after a re-stamp).
    ///   - hashed: whether the install records the store's SHA-256; false when its set digest stood
    ///     for reading it whole.
    ///   - restampFailed: the error to throw when the re-stamp fails.
    /// - Throws: what `restampFailed` gives, `CancellationError`, ``StoreError`` (the rename).
    func finishInstall(
        _ temporary: String, as name: String, in folder: InstallFolder, checked: FileDigest?, hashed: Bool, restampFor model: Model?,
        run: InstallRun,
        restampFailed: (any Error) -> any Error
    ) throws -> InstalledFile {
        var installed = checked
        if let model {
            do {
                try StoreRestamp.restamp(inPlace: temporary, for: model)
            } catch {
                throw restampFailed(error)
            }
            try run.checkCancellation()
            installed = hashed ? try FileDigest(of: temporary) : nil
        }
        try AtomicFile.commit(temporary, to: folder.path(name), mode: 0o444)
        return InstalledFile(name: name, sha256: installed?.sha256)
    }

    typealias Inflate = ((DownloadFile, (UnsafeRawBufferPointer) -> Void) throws(GzipError) -> Int64) throws -> Int64

    /// A folder channel's artifact is inflated where it lies, hashed as it is read: no copy first.
    /// A file of another size is refused before it is read; a failure names the checksum when the
    /// file is not the one the manifest describes.
    private func inflateInPlace(
        _ artifact: Manifest.FileEntry, store: Manifest.FileEntry, from channel: ReleaseChannel, remote: String,
        folder: InstallFolder, run: InstallRun, inflate: Inflate
    ) throws -> Int64 {
        folder.removeLeftovers(keeping: "")
        let source = channel.describe(remote)
        var status = stat()
        guard stat(source, &status) == 0 else {
            throw InstallError(
                .checksum, "\(source): cannot read the artifact (\(String(cString: strerror(errno)))); the release is incomplete")
        }
        func mismatch(_ digest: FileDigest) -> InstallError {
            InstallError(
                .checksum,
                "\(source): \(digest.bytes) bytes with SHA-256 \(digest.sha256), the manifest says \(artifact.bytes) bytes with \(artifact.sha256); the artifact was changed or damaged"
            )
        }
        guard Int64(status.st_size) == artifact.bytes else {
            throw InstallError(
                .checksum,
                "\(source): \(status.st_size) bytes, the manifest says \(artifact.bytes) bytes with \(artifact.sha256); the artifact was changed or damaged"
            )
        }
        try run.checkCancellation()
        var digest: FileDigest?
        let inflated: Int64
        do {
            inflated = try inflate { (file, observe) throws(GzipError) -> Int64 in
                let (written, read) = try withoutActuallyEscaping(observe) { observe throws(GzipError) in
                    try GzipInflater.inflate(
                        file: source, to: file, maxOutputBytes: store.bytes, segments: artifact.segments, observe: observe)
                }
                digest = read
                return written
            }
        } catch let error as GzipError {
            if let read = try? FileDigest(of: source), read.bytes != artifact.bytes || read.sha256 != artifact.sha256 {
                throw mismatch(read)
            }
            throw InstallError(.checksum, "\(source): \(error.reason)")
        }
        guard let digest, digest.bytes == artifact.bytes, digest.sha256 == artifact.sha256 else {
            throw mismatch(digest ?? FileDigest(bytes: 0, sha256: "-"))
        }
        run.observer.received(digest.bytes)
        return inflated
    }

    /// Downloads the artifact into a partial file kept across failed tries (so the next goes on from
    /// its end), checks it, and inflates it.
    private func downloadAndInflate(
        _ artifact: Manifest.FileEntry, store: Manifest.FileEntry, from channel: ReleaseChannel, remote: String,
        folder: InstallFolder, dataVersion: Int64, run: InstallRun, inflate: Inflate
    ) throws -> Int64 {
        let partialName = folder.partialName(dataVersion: dataVersion)
        folder.removeLeftovers(keeping: partialName)
        // Kept across failed attempts, so the next try goes on from its end; removed once it is used.
        let partial = try DownloadFile.openForResume(folder.path(partialName))
        var digest: FileDigest?
        if partial.size >= artifact.bytes {
            // Complete (a fetch killed while inflating) or too long: checked as it is, never resumed past its end.
            let existing = try partial.digest()
            if existing.bytes == artifact.bytes, existing.sha256 == artifact.sha256 { digest = existing } else { try partial.truncate() }
        }
        if digest == nil {
            run.report(.downloading, partial.size, of: artifact.bytes)
            run.observer.observeBytes { run.report(.downloading, $0, of: artifact.bytes) }
            defer { run.observer.observeBytes(nil) }
            do throws(TransferError) {
                _ = try channel.download(remote, into: partial, maxBytes: artifact.bytes, observer: run.observer)
            } catch {
                // Longer than the manifest states, or not served as stored: nothing of it is worth going on
                // from; and a cancelled install leaves no file behind.
                switch error.kind {
                case .tooLarge, .refused: partial.remove()
                case .cancelled:
                    partial.remove()
                    throw CancellationError()
                default: break
                }
                throw error
            }
            digest = try partial.digest()
            run.report(.downloading, digest?.bytes ?? 0, of: artifact.bytes)
        }
        do {
            try run.checkCancellation()
        } catch {
            partial.remove()
            throw error
        }
        guard let digest, digest.bytes == artifact.bytes, digest.sha256 == artifact.sha256 else {
            partial.remove()
            throw InstallError(
                .checksum,
                "\(channel.describe(remote)): \(digest?.bytes ?? 0) bytes with SHA-256 \(digest?.sha256 ?? "-"), the manifest says \(artifact.bytes) bytes with \(artifact.sha256); the artifact was changed or damaged"
            )
        }
        defer { partial.remove() }
        do {
            return try inflate { (file, observe) throws(GzipError) -> Int64 in
                try withoutActuallyEscaping(observe) { observe throws(GzipError) in
                    try GzipInflater.inflate(partial, to: file, maxOutputBytes: store.bytes, segments: artifact.segments, observe: observe)
                }
            }
        } catch let error as GzipError {
            throw InstallError(.checksum, "\(channel.describe(remote)): \(error.reason)")
        }
    }

    /// `quick_check`, then the store's own metadata must say what the manifest says (every field a
    /// manifest repeats, ``Manifest/metadataKeys``: data version, content digest, configuration,
    /// entity hashes, row counts…), so a store swapped in under a rewritten manifest for another
    /// model or release is refused even without a trusted key.
    private func checkStore(_ path: String, against manifest: Manifest, url: String) throws {
        let quick = try StoreConnection(path: path, mode: .immutable).strings("PRAGMA quick_check")
        guard quick == ["ok"] else {
            throw InstallError(.checksum, "\(url): quick_check failed: \(quick.prefix(3).joined(separator: "; "))")
        }
        try checkMetadata(path, against: manifest, url: url)
    }

    /// The store's own metadata must say what the manifest says (``checkStore(_:against:url:)``'s second half).
    func checkMetadata(_ path: String, against manifest: Manifest, url: String) throws {
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: path))
        let differences = manifest.differences(from: metadata)
        guard differences.isEmpty else {
            throw InstallError(
                .checksum,
                "\(url): the store inside does not match its manifest (\(differences.joined(separator: "; "))); the release was put together from different builds"
            )
        }
    }
}
