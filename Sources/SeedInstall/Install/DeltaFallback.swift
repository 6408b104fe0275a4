/// Why an install did not come by a delta but by the full artifact, within the same fetch
/// (``SeedInstaller/Result/fallback``); the installed seed stayed in use meanwhile.
public struct DeltaFallback: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which step of the delta path failed; each falls back to the full artifact.
    public enum Reason: String, Sendable, Hashable {
        /// The manifest lists no delta from the installed data version (or none at all).
        case noDelta
        /// The listed delta is not smaller than the artifact, or its entry is malformed.
        case unusableEntry
        /// The installed store is not the one installed: its SHA-256 changed (the app wrote to it), it
        /// has a write-ahead log with changes, or its content digest is not the delta's base.
        case storeModified
        /// The installed store was re-stamped on this device for the app's model in a way a delta
        /// cannot start from (renumbered entities, or the plain layout's metadata).
        case restamped
        /// The delta could not be downloaded (HTTP status, connection, timeout).
        case download
        /// The manifest states a delta larger than ``SeedInstaller/maxDeltaBytes`` (refused before
        /// downloading), the server sent more bytes than the manifest states, or it inflates past
        /// ``SeedInstaller/maxDeltaBytes``.
        case tooLarge
        /// The delta's size or SHA-256 is not the manifest's (changed, damaged or truncated).
        case checksum
        /// The delta does not read as one (gzip, format, or it inflates past its bound), or its shape
        /// would make the apply scan tables: a table named twice, or keyed by other columns than the
        /// installed store's primary key. Refused before any statement runs.
        case corrupt
        /// The delta starts from another release than the installed one.
        case wrongBase
        /// The delta ends at another release than the manifest's (replayed from an older manifest).
        case wrongTarget
        /// Applying it failed: another schema, a row that is not as the delta expects, a constraint.
        case conflict
        /// The store it gives is not the release: `quick_check`, its metadata or its content digest.
        case wrongResult
        /// Applying and checking it took longer than ``SeedInstaller/deltaApplyTimeout`` (or the
        /// fetch's ``SeedInstaller/deadline`` came first): SQLite was interrupted and the copy dropped.
        case timedOut
        /// A local file could not be read or written while applying it.
        case file
    }

    /// Which step of the delta path failed.
    public let reason: Reason
    /// What happened, naming the file or URL.
    public let message: String

    /// A fallback for `reason`, with a message that names the file or URL.
    package init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The reason's name, then the message: `storeModified: …`.
    public var description: String { "\(reason.rawValue): \(message)" }
}
