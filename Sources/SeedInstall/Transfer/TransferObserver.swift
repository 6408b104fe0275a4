import Foundation

/// Watches downloads from outside: hears how many bytes are in the file as they arrive, counts every
/// byte received, and stops them when cancelled (checked with every chunk and every tenth of a second).
///
/// `@unchecked Sendable`: safe because every property is read and written under `lock`.
package final class TransferObserver: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var onBytes: (@Sendable (Int64) -> Void)?
    private var received: Int64 = 0

    /// Every byte received so far, over all requests and retries (or read from a folder channel).
    var receivedBytes: Int64 { lock.withLock { received } }

    /// Counts bytes as they arrive.
    func received(_ count: Int64) { lock.withLock { received += count } }

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
