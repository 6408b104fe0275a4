import Foundation

/// Why a release was refused; the installed seed stays in use.
public struct InstallError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case noRelease, signature, expired, rollback, model, checksum
    }

    public let kind: Kind
    public let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(message) (the installed seed, if any, stays in use)" }
}
