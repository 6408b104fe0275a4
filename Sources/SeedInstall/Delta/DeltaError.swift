/// A delta that cannot be read, written, composed or applied, and why.
public struct DeltaError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bytes are not a delta, are of another version, or are cut short or damaged.
        case corrupt
        /// The delta's tables or columns are not the target's.
        case schemaMismatch
        /// The delta starts from another release than the target (or, composing, than the one before ends at).
        case wrongBase
        /// The operations contradict each other or the table they name.
        case inconsistent
        case io
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
