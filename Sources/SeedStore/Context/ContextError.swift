/// A fetch or save that a context refuses, naming the objects, entities and properties concerned.
public struct ContextError: Error, Sendable, CustomStringConvertible {
    /// What the context refused.
    public enum Kind: Sendable, Equatable {
        /// The model has no such entity or property.
        case unknownName
        /// Values break the model's rules: listed in ``problems``.
        case validation
        /// Another context (or process) saved the same objects first, and the merge policy is `error`.
        case mergeConflict
        /// The object is not (or no longer) in this context or its store.
        case objectNotFound
    }

    /// What the context refused.
    public let kind: Kind
    /// What is wrong, naming the entity, property or object, and what to do.
    public let message: String
    /// Every problem found, one line each (validation lists them all at once).
    public let problems: [String]

    /// An error of `kind`; `problems` lists every problem found, for a validation.
    public init(_ kind: Kind, _ message: String, problems: [String] = []) {
        self.kind = kind
        self.message = message
        self.problems = problems
    }

    /// The message, then each problem on a line of its own.
    public var description: String {
        problems.isEmpty ? message : ([message] + problems.map { "  - " + $0 }).joined(separator: "\n")
    }
}
