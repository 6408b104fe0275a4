import Foundation

/// Where an install is, for an app's progress display.
public struct InstallProgress: Sendable, Hashable {
    /// The steps of an install, in the order they are reported; a delta's two phases come before the
    /// download's only when a delta is tried.
    public enum Phase: String, Sendable, Hashable {
        /// Reading the pointer and the manifest, checking the signature, fields and model.
        case checkingRelease
        /// Downloading the release's delta from the installed one: ``InstallProgress/completedBytes`` of
        /// ``InstallProgress/totalBytes`` (the size the manifest states).
        case downloadingDelta
        /// Copying the installed store to apply the delta to, where the file system cannot clone it
        /// (APFS, XFS and Btrfs clone it at no cost, and this phase is skipped): ``InstallProgress/completedBytes``
        /// of ``InstallProgress/totalBytes`` (the installed store's size).
        case copyingStore
        /// Applying the delta to a copy of the installed store, in one transaction.
        case applyingDelta
        /// Downloading the compressed store: ``InstallProgress/completedBytes`` of ``InstallProgress/totalBytes``.
        case downloading
        /// Inflating it beside the installed seed: bytes of the store written so far.
        case inflating
        /// `quick_check`, the store's own metadata and its content against the manifest (after a
        /// download, or after applying a delta).
        case checkingStore
        /// The new store is in use (the last report of an install that changed something).
        case installed
    }

    /// The step the install is in.
    public var phase: Phase
    /// Bytes done in this phase (downloading a delta or the artifact, inflating); 0 in the others.
    public var completedBytes: Int64
    /// The bytes the phase will reach, as the manifest states them; nil where there is no such count.
    public var totalBytes: Int64?

    /// A report of `phase`, with `completedBytes` of `totalBytes` done where the phase counts bytes.
    public init(phase: Phase, completedBytes: Int64 = 0, totalBytes: Int64? = nil) {
        self.phase = phase
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// Done so far in this phase, from 0 to 1; nil where there is no byte count.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}

extension SeedInstaller {
    /// Installs a release as ``install(from:to:)`` does, on the calling thread, reporting progress
    /// to `progress` on that thread several times a second while bytes arrive (a command-line tool's
    /// status line).
    public func install(
        from channelURL: String, to directory: String, reporting progress: @escaping @Sendable (InstallProgress) -> Void
    ) throws -> Result {
        try install(from: channelURL, to: directory, run: InstallRun(progress: progress))
    }

    /// Installs a release as ``install(from:to:)`` does, off the caller's thread, reporting progress
    /// and stopping when the task is cancelled.
    ///
    /// ```swift
    /// let task = Task {
    ///     try await installer.install(from: channel, to: appSupport) { progress in
    ///         Task { @MainActor in model.progress = progress.fractionCompleted }
    ///     }
    /// }
    /// task.cancel()   // the installed seed stays in use; no temporary file is left
    /// ```
    /// `progress` is called on the installing thread, several times a second while bytes arrive.
    /// Cancelling stops the download within a tenth of a second, or the install at its next step;
    /// the partial download is removed too (no resume later), and the seed installed before stays in
    /// use. Once the new store is switched in, cancelling no longer undoes it.
    /// - Throws: `CancellationError` when cancelled first; otherwise what ``install(from:to:)`` throws.
    public func install(
        from channelURL: String, to directory: String, progress: @escaping @Sendable (InstallProgress) -> Void = { _ in }
    ) async throws -> Result {
        let run = InstallRun(progress: progress)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A thread of its own: the install blocks on the network and the disk, which would
                // hold one of the few threads Swift's task pool has.
                Thread.detachNewThread {
                    continuation.resume(with: Swift.Result { try self.install(from: channelURL, to: directory, run: run) })
                }
            }
        } onCancel: {
            run.observer.cancel()
        }
    }
}

/// One install's progress reports, cancellation and byte count: one per install, never shared.
struct InstallRun: Sendable {
    let observer = TransferObserver()
    let progress: @Sendable (InstallProgress) -> Void

    func report(_ phase: InstallProgress.Phase, _ completed: Int64 = 0, of total: Int64? = nil) {
        progress(InstallProgress(phase: phase, completedBytes: completed, totalBytes: total))
    }

    /// Stops the install here when it was cancelled.
    func checkCancellation() throws {
        if observer.isCancelled { throw CancellationError() }
    }
}
