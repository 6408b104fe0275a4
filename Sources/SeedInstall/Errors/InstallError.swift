import Foundation

/// Why a release was refused; the installed seed stays in use.
public struct InstallError: Error, Sendable, CustomStringConvertible {
    /// Which check refused the release: `noRelease` (no `latest.json` at the channel, or the manifest
    /// it names is missing), `signature` (no trusted key given, or no valid signature by one),
    /// `expired` (the manifest is past its `expires`, or states none), `rollback` (an older data
    /// version than the installed one), `model` (the release does not fit the app's model and no
    /// lightweight migration is inferable), `checksum` (a field missing or malformed, the pointer and
    /// manifest disagreeing, or a size, SHA-256, `quick_check` or the store's metadata not as stated).
    public enum Kind: String, Sendable {
        case noRelease, signature, expired, rollback, model, checksum
    }

    /// Which check refused the release.
    public let kind: Kind
    /// What was refused and why, naming the URL or file, and what to do.
    public let message: String

    /// An error of `kind` with a message that names the URL or file.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message, and that the seed installed before (if any) stays in use.
    public var description: String { "\(message) (the installed seed, if any, stays in use)" }
}
