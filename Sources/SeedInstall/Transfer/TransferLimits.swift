import Foundation

/// How long and how slowly a request may run, besides its size limit.
///
/// Every GET and HEAD is watched: nothing received for `idleTimeout` ends it (another try may follow),
/// and so does receiving fewer than `minimumRate` bytes per second over the last `rateWindow`.
/// The fetch as a whole has a deadline on top (``SeedInstaller/deadline``).
public struct TransferLimits: Sendable, Equatable {
    /// Seconds with nothing received before a request is given up.
    public var idleTimeout: TimeInterval
    /// Bytes per second a download must keep up, averaged over `rateWindow`.
    public var minimumRate: Int64
    /// Seconds the rate is averaged over; a request younger than this is never too slow.
    public var rateWindow: TimeInterval

    /// Limits of `idleTimeout` seconds idle, at least `minimumRate` bytes per second over `rateWindow` seconds.
    public init(idleTimeout: TimeInterval = 30, minimumRate: Int64 = 4096, rateWindow: TimeInterval = 20) {
        self.idleTimeout = idleTimeout
        self.minimumRate = minimumRate
        self.rateWindow = rateWindow
    }
}

/// When a whole fetch gives up, on the monotonic clock (changing the wall clock moves nothing).
package struct Deadline: Sendable {
    /// The time the fetch was given, for messages.
    package let seconds: TimeInterval
    private let end: UInt64

    /// A deadline `seconds` from now (capped at 10^9 s; a negative value has passed already).
    package init(seconds: TimeInterval) {
        self.seconds = seconds
        end = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, min(seconds, 1e9)) * 1e9)
    }

    /// Seconds left, 0 once passed.
    package var remaining: TimeInterval {
        let now = DispatchTime.now().uptimeNanoseconds
        return now >= end ? 0 : Double(end - now) / 1e9
    }

    /// Whether the deadline has passed.
    package var hasPassed: Bool { remaining <= 0 }
}
