import Foundation
import SeedModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SeedInstaller {
    /// A store an install wrote: its file name in the folder, and its SHA-256 as installed (what a
    /// later delta's base must still have).
    struct InstalledFile {
        var name: String
        /// Nil for a store a delta gave when its set digest was checked instead of reading it whole.
        var sha256: String?
    }

    /// The release's delta from the installed one, and where it leads, as the manifest names them.
    struct DeltaRequest {
        var manifest: Manifest
        var manifestURL: String
        var dataVersion: Int64
        var store: Manifest.FileEntry
        var installed: InstallRecord.Current
    }

    /// Installs the release by the delta its manifest lists from the installed one: checks the installed
    /// store is that delta's base as installed, downloads the delta (never past its stated size), checks
    /// its SHA-256, reads it (never inflating past a bound), checks it leads from the installed release
    /// to this one, applies it to a clone of the installed store in one transaction, checks the result
    /// as a full install checks a store (`quick_check`, content digest, metadata against the manifest),
    /// re-stamps it for the app's model when the full path would, and renames it into place. Hold the
    /// folder's lock; the installed store is never changed.
    /// - Throws: ``DeltaFallback`` saying why the full artifact is needed instead; `CancellationError`
    ///   when `run` is cancelled. Nothing is left in the folder either way.
    func installByDelta(
        _ request: DeltaRequest, artifact: Manifest.FileEntry, state: InstallRecord, from channel: ReleaseChannel,
        into folder: InstallFolder,
        run: InstallRun, restampFor model: Model?
    ) throws -> InstalledFile {
        let entry = try deltaEntry(request, artifact: artifact)
        let base = state.path(request.installed.store)
        // Checked in time proportional to the delta when both the release and the install record a
        // set digest: the installed store known unchanged by its stamp, the result by the digest.
        let proportional =
            !fullCheck && request.manifest.values[SetDigest.manifestKey]?.stringValue != nil && request.installed.setDigest != nil
        try checkBase(base, installed: request.installed, entry: entry, trustStamp: proportional)
        folder.removeLeftovers(keeping: folder.partialName(dataVersion: request.dataVersion))
        let remote = ReleasePointer.deltaPath(sha256: entry.sha256)
        let url = channel.describe(remote)
        let bytes = try downloadDelta(entry, remote: remote, from: channel, into: folder, request: request, run: run)
        let limit = DeltaApplyLimit(seconds: deltaApplyTimeout, fetchDeadline: channel.deadline, run: run, url: url)
        let delta = try decodeDelta(bytes, request: request, url: url, limit: limit)
        let from = DeltaRelease(dataVersion: entry.fromDataVersion, contentDigest: entry.fromContentDigest)
        guard delta.header.from == from else {
            throw DeltaFallback(
                .wrongBase,
                "\(url): the delta starts from data version \(delta.header.from.dataVersion) (content digest \(delta.header.from.contentDigest.prefix(12))…), but the manifest lists it from \(from.dataVersion) (\(from.contentDigest.prefix(12))…); the channel is damaged"
            )
        }
        let to = DeltaRelease(dataVersion: request.dataVersion, contentDigest: entry.toContentDigest)
        guard delta.header.to == to else {
            throw DeltaFallback(
                .wrongTarget,
                "\(url): the delta ends at data version \(delta.header.to.dataVersion) (content digest \(delta.header.to.contentDigest.prefix(12))…), not at this release, \(to.dataVersion) (\(to.contentDigest.prefix(12))…); it is replayed from another release"
            )
        }
        try run.checkCancellation()

        let name = "\(folder.dataset)-\(request.dataVersion).sqlite"
        // A leftover name the folder's cleaning knows, like the full path's inflated store. The
        // apply keeps no journal beside it (DeltaApplier.applyStatements).
        let temporary = AtomicFile.temporaryPath(for: folder.path(name))
        defer { unlink(temporary) }
        let copy: DownloadFile
        do {
            copy = try DownloadFile.clone(of: base, to: temporary) { done, total in run.report(.copyingStore, done, of: total) }
            run.report(.applyingDelta)
        } catch {
            throw DeltaFallback(.file, "cannot copy the installed store to apply the delta: \(error)")
        }
        do {
            try DeltaApplier.applyStatements(delta, inPlace: temporary, base: base, stopWhen: limit.shouldStop)
        } catch let error as DeltaError {
            let reason: DeltaFallback.Reason =
                switch error.kind {
                case .wrongBase: .wrongBase
                case .corrupt: .corrupt
                default: .conflict
                }
            throw DeltaFallback(reason, "\(url): \(error.message)")
        } catch let error as StoreError {
            try limit.checkStopped()
            throw DeltaFallback(error.kind == .io ? .file : .conflict, "\(url): applying it to a copy of \(base): \(error)")
        }
        try limit.checkStopped()

        run.report(.checkingStore)
        // Written to the disk (and hashed, when the set digest does not stand for that) while it is
        // checked; a re-stamp changes it, and then it is hashed again as re-stamped.
        let finishing = BackgroundWork { () throws -> FileDigest? in
            try copy.sync()
            return proportional || model != nil ? nil : try FileDigest(of: temporary)
        }
        defer { _ = try? finishing.value() }
        do {
            if proportional {
                try DeltaApplier.checkRelease(of: delta, at: temporary, base: base)
            } else {
                _ = try DeltaApplier.checkResult(of: delta, at: temporary, base: base, stopWhen: limit.shouldStop)
            }
            try checkMetadata(temporary, against: request.manifest, url: url)
            try checkSetDigest(delta, base: base, request: request, url: url)
        } catch let error as StoreError {
            try limit.checkStopped()
            throw error
        } catch let error as InstallError {
            throw DeltaFallback(.wrongResult, error.message)
        } catch let error as DeltaError {
            throw DeltaFallback(.wrongResult, "\(url): \(error.message)")
        }
        try limit.checkStopped()
        do {
            return try finishInstall(
                temporary, as: name, in: folder, checked: try finishing.value(), hashed: !proportional, restampFor: model, run: run
            ) { error in
                DeltaFallback(.restamped, "\(url): cannot stamp the store the delta gave for the app's model: \(error)")
            }
        } catch let error as DeltaFallback {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw DeltaFallback(.file, "\(folder.path(name)): \(error)")
        }
    }

    /// The manifest's delta from the installed data version, when it can lead to this release and is
    /// worth downloading.
    private func deltaEntry(_ request: DeltaRequest, artifact: Manifest.FileEntry) throws(DeltaFallback) -> Manifest.DeltaEntry {
        let installed = request.installed.dataVersion
        let deltas = request.manifest.deltas
        guard let entry = deltas.first(where: { $0.fromDataVersion == installed }) else {
            let listed = deltas.isEmpty ? "none" : "only from " + deltas.map { String($0.fromDataVersion) }.joined(separator: ", ")
            throw DeltaFallback(
                .noDelta, "\(request.manifestURL): the release lists no delta from the installed data version \(installed) (\(listed))")
        }
        guard ReleaseNames.isSHA256(entry.sha256), entry.bytes > 0 else {
            throw DeltaFallback(.unusableEntry, "\(request.manifestURL): the delta from \(installed) has no valid size or SHA-256")
        }
        guard entry.bytes < artifact.bytes else {
            throw DeltaFallback(
                .unusableEntry,
                "\(request.manifestURL): the delta from \(installed) (\(entry.bytes) bytes) is not smaller than the artifact (\(artifact.bytes) bytes)"
            )
        }
        // It is read into memory whole and inflates to at least about its size: refused before a byte of it is downloaded.
        guard entry.bytes <= maxDeltaBytes else {
            throw DeltaFallback(
                .tooLarge,
                "\(request.manifestURL): the delta from \(installed) is \(entry.bytes) bytes, more than the \(maxDeltaBytes) this installer reads into memory (SeedInstaller.maxDeltaBytes); raise it if deltas this large are expected"
            )
        }
        let digest = request.manifest.values["contentDigest"]?.stringValue
        guard entry.toContentDigest == digest else {
            throw DeltaFallback(
                .wrongTarget,
                "\(request.manifestURL): the delta from \(installed) leads to content digest \(entry.toContentDigest.prefix(12))…, not this release's \((digest ?? "none").prefix(12))…; the channel is damaged"
            )
        }
        return entry
    }

    /// The installed store must be the delta's base exactly as it was installed: no write-ahead log
    /// with changes beside it, its SHA-256 as `.current` records it (or, for an install from before
    /// that record, as the delta's base was published), its content digest and data version the base's.
    /// - Parameter trustStamp: whether the stamp `.current` recorded, while it holds, stands for reading
    ///   the store whole; when it does not hold, the store is read whole: its SHA-256 against the one
    ///   recorded or, for a store a delta gave (no SHA-256 recorded), its set digest against the recorded one.
    private func checkBase(_ path: String, installed: InstallRecord.Current, entry: Manifest.DeltaEntry, trustStamp: Bool)
        throws(DeltaFallback)
    {
        var status = stat()
        if lstat(path + "-wal", &status) == 0, status.st_size > 0 {
            throw DeltaFallback(
                .storeModified,
                "\(path)-wal: the installed store has a write-ahead log with changes (something opened it for writing); a delta applies only to the store as installed"
            )
        }
        let metadata: StoreMetadata
        let layout: StoreLayout
        do {
            metadata = try StoreMetadata.read(at: URL(fileURLWithPath: path))
            layout = try StoreFile.layout(at: path)
        } catch {
            throw DeltaFallback(.storeModified, "\(path): cannot read the installed store: \(error)")
        }
        if !(trustStamp && installed.stamp?.holds(for: path) == true) {
            try checkUnchanged(path, installed: installed, entry: entry)
        }
        let restamped = metadata[StoreMetadata.Key.restampedFrom] != nil
        if restamped, layout == .plain {
            throw DeltaFallback(
                .restamped,
                "\(path): re-stamped on this device for the app's model; in the plain layout its metadata rows are the app's, which a delta of the channel's does not carry"
            )
        }
        let digests = [metadata.contentDigest, installed.contentDigest ?? metadata.contentDigest]
        guard digests.allSatisfy({ $0 == entry.fromContentDigest }), metadata.dataVersion == entry.fromDataVersion else {
            if restamped {
                throw DeltaFallback(
                    .restamped,
                    "\(path): re-stamped on this device with the app's entity numbers, so its rows are no longer the published release's a delta starts from"
                )
            }
            throw DeltaFallback(
                .storeModified,
                "\(path): data version \(metadata.dataVersion ?? 0) with content digest \((metadata.contentDigest ?? "none").prefix(12))…, not the delta's base, \(entry.fromDataVersion) with \(entry.fromContentDigest.prefix(12))…"
            )
        }
    }

    /// Downloads the delta into the folder under its partial name (removed whatever happens), never past
    /// its stated size, and checks its size and SHA-256.
    /// - Returns: its bytes, as checked.
    private func downloadDelta(
        _ entry: Manifest.DeltaEntry, remote: String, from channel: ReleaseChannel, into folder: InstallFolder, request: DeltaRequest,
        run: InstallRun
    ) throws -> Data {
        let url = channel.describe(remote)
        let file: DownloadFile
        do {
            file = try DownloadFile.openForResume(folder.path(folder.deltaPartialName(dataVersion: request.dataVersion)))
            try file.truncate()
        } catch {
            throw DeltaFallback(.file, error.description)
        }
        defer { file.remove() }
        run.report(.downloadingDelta, 0, of: entry.bytes)
        run.observer.observeBytes { run.report(.downloadingDelta, $0, of: entry.bytes) }
        defer { run.observer.observeBytes(nil) }
        do throws(TransferError) {
            _ = try channel.download(remote, into: file, maxBytes: entry.bytes, observer: run.observer)
        } catch {
            switch error.kind {
            case .cancelled: throw CancellationError()
            case .tooLarge: throw DeltaFallback(.tooLarge, "\(error)")
            default: throw DeltaFallback(.download, "\(error)")
            }
        }
        try run.checkCancellation()
        // Read through the descriptor it was written by: the bytes checked are the bytes decoded.
        let bytes: Data
        do {
            let handle = FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: false)
            try handle.seek(toOffset: 0)
            // At most one byte past the stated size (at most maxDeltaBytes, checked before downloading): enough to tell it is longer.
            bytes = try handle.read(upToCount: min(Int(entry.bytes), Int.max - 1) + 1) ?? Data()
        } catch {
            throw DeltaFallback(.file, "\(file.path): cannot read the downloaded delta back: \(error.localizedDescription)")
        }
        run.report(.downloadingDelta, Int64(bytes.count), of: entry.bytes)
        let digest = FileDigest(of: bytes)
        guard digest.matches(bytes: entry.bytes, sha256: entry.sha256) else {
            let why = digest.bytes < entry.bytes ? "it is truncated" : "it was changed or damaged"
            throw DeltaFallback(.checksum, "\(url): \(digest.mismatch(bytes: entry.bytes, sha256: entry.sha256)); \(why)")
        }
        return bytes
    }

    /// Reads a downloaded delta, inflating no more than twice the release's store plus 1 MiB (a delta
    /// never holds more rows than the store it leads to), within the apply's `limit`.
    private func decodeDelta(_ bytes: Data, request: DeltaRequest, url: String, limit: DeltaApplyLimit) throws -> Delta {
        // Never more rows than the store it leads to holds, nor more than this device reads into memory.
        let storeBound = Int(clamping: min(max(request.store.bytes, 0), 1 << 40) * 2 + (1 << 20))
        let bound = min(storeBound, maxDeltaBytes)
        do {
            return try DeltaReader.decode(gzip: bytes, maxBytes: bound, name: url, stopWhen: limit.shouldStop)
        } catch {
            try limit.checkStopped()
            if bound < storeBound, error.message.contains("inflates to more than \(bound) bytes") {
                throw DeltaFallback(
                    .tooLarge,
                    "\(url): inflates past \(bound) bytes, the most this installer reads into memory (SeedInstaller.maxDeltaBytes)")
            }
            throw DeltaFallback(.corrupt, error.message)
        }
    }
}

extension SeedInstaller {
    /// The installed store read whole: its SHA-256 as recorded at install (or as the delta's base was
    /// published, for an install from before that record), or — for a store a delta gave, which has no
    /// SHA-256 recorded — its set digest as recorded.
    func checkUnchanged(_ path: String, installed: InstallRecord.Current, entry: Manifest.DeltaEntry) throws(DeltaFallback) {
        if installed.storeSHA256 == nil, let recorded = installed.setDigest {
            let digest: SetDigest
            do {
                digest = try SetDigest.compute(of: path)
            } catch {
                throw DeltaFallback(.storeModified, "\(path): cannot read the installed store: \(error)")
            }
            guard digest.description == recorded else {
                throw DeltaFallback(
                    .storeModified,
                    "\(path): its rows are not those it was installed with (set digest); the store was changed after it was installed (an app opens a seed read-only)"
                )
            }
            return
        }
        let digest: FileDigest
        do {
            digest = try FileDigest(of: path)
        } catch {
            throw DeltaFallback(.storeModified, "\(path): cannot read the installed store: \(error)")
        }
        let expected = installed.storeSHA256 ?? entry.fromStoreSHA256
        guard digest.sha256 == expected else {
            throw DeltaFallback(
                .storeModified,
                "\(path): SHA-256 \(digest.sha256.prefix(12))…, but it was installed as \(expected.prefix(12))…; the store was changed after it was installed (an app opens a seed read-only)"
            )
        }
    }

    /// Every table the delta touched — metadata tables included — must now be the release's: the
    /// installed release's set digest, as recorded when it was installed, updated with the rows the
    /// delta removes and adds (old rows read from the installed store, which checkBase found as
    /// installed), must be the manifest's. Skipped when either side states none (a release published,
    /// or a store installed, before set digests, or a re-stamped install).
    func checkSetDigest(_ delta: Delta, base: String, request: DeltaRequest, url: String) throws {
        guard let stated = request.manifest.values[SetDigest.manifestKey]?.stringValue,
            let installed = request.installed.setDigest.flatMap(SetDigest.init)
        else { return }
        let updated = try delta.update(installed, base: StoreConnection(path: base, mode: .immutable))
        guard updated.description == stated else {
            throw DeltaFallback(
                .wrongResult,
                "\(url): the set digest after the delta is not the release's: a table the delta touched (metadata included) differs from the release; the channel is damaged"
            )
        }
    }
}
