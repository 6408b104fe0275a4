/// A delta that cannot be read, written, composed or applied, and why.
package struct DeltaError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
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

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
