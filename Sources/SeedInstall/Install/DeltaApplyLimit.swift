import Foundation

/// When reading, applying and checking a downloaded delta gives up: at
/// ``SeedInstaller/deltaApplyTimeout`` from the end of its download, at the fetch's deadline if that
/// comes first, or when the install is cancelled.
///
/// ``shouldStop`` is handed to the decoder and to SQLite (``StoreConnection/stop(when:)``), which is
/// then interrupted within a statement or before the next; after any failure ``checkStopped()`` says
/// whether that was why.
struct DeltaApplyLimit: Sendable {
    private let run: InstallRun
    private let deadline: Deadline
    private let started = DispatchTime.now().uptimeNanoseconds
    /// What set the deadline, for the message.
    private let cause: String
    private let url: String

    /// - Parameters:
    ///   - seconds: ``SeedInstaller/deltaApplyTimeout``.
    ///   - fetchDeadline: the whole fetch's (``SeedInstaller/deadline``), when it has one.
    init(seconds: TimeInterval, fetchDeadline: Deadline?, run: InstallRun, url: String) {
        self.run = run
        self.url = url
        if let fetchDeadline, fetchDeadline.remaining < seconds {
            deadline = Deadline(seconds: fetchDeadline.remaining)
            cause = "the fetch's deadline of \(Self.shown(fetchDeadline.seconds)) s (SeedInstaller.deadline)"
        } else {
            deadline = Deadline(seconds: seconds)
            cause = "its deadline of \(Self.shown(seconds)) s (SeedInstaller.deltaApplyTimeout)"
        }
    }

    /// True once the install is cancelled or the deadline has passed; quick, called from SQLite.
    var shouldStop: @Sendable () -> Bool {
        { [run, deadline] in run.observer.isCancelled || deadline.hasPassed }
    }

    /// Throws `CancellationError` when the install was cancelled (it ends, with no fallback), or the
    /// `timedOut` fallback when the deadline has passed (the artifact is fetched instead).
    func checkStopped() throws {
        try run.checkCancellation()
        guard deadline.hasPassed else { return }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        throw DeltaFallback(
            .timedOut,
            "\(url): reading, applying and checking the delta stopped after \(Self.shown(elapsed)) s, at \(cause); the full artifact is fetched instead. Raise SeedInstaller.deltaApplyTimeout if deltas this large are expected"
        )
    }

    private static func shown(_ seconds: TimeInterval) -> String {
        String(format: "%.1f", seconds)
    }
}
