import Foundation

/// Watches downloads from outside: hears how many bytes are in the file as they arrive, and stops
/// them when cancelled (checked with every chunk and every tenth of a second).
final class TransferObserver: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var onBytes: (@Sendable (Int64) -> Void)?

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() { lock.withLock { cancelled = true } }

    /// Where the byte counts of the next downloads go.
    func observeBytes(_ handler: (@Sendable (Int64) -> Void)?) { lock.withLock { onBytes = handler } }

    /// Reports the bytes a download holds so far.
    func transferred(_ bytes: Int64) {
        let handler = lock.withLock { onBytes }
        handler?(bytes)
    }
}
