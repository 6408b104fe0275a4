/// A delta that cannot be read, written, composed or applied, and why.
package struct DeltaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the delta cannot be used.
    package enum Kind: Sendable, Equatable {
        /// The bytes are not a delta, are of another version, or are cut short or damaged.
        case corrupt
        /// The delta's tables or columns are not the target's.
        case schemaMismatch
        /// The delta starts from another release than the target (or, composing, than the one before ends at).
        case wrongBase
        /// The operations contradict each other or the table they name.
        case inconsistent
        /// A file could not be read or written.
        case io
    }

    /// Why the delta cannot be used.
    package let kind: Kind
    /// What is wrong, naming the file, table or operation.
    package let message: String

    /// An error of `kind` with a message that names the file, table or operation.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
