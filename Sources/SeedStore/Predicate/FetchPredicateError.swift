/// A predicate that cannot be parsed or applied, naming the position in the format string or the
/// key path, and what was expected.
public struct FetchPredicateError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The predicate format string.
    public let format: String
    /// The character offset of the problem, counted from 0, when it is a parse error.
    public let position: Int?
    /// What is wrong and what the format expects there.
    public let message: String

    /// An error in `format` at `position` (nil when it is not a parse error).
    public init(format: String, position: Int?, _ message: String) {
        self.format = format
        self.position = position
        self.message = message
    }

    /// The format and the message; for a parse error, the position and a caret under it.
    public var description: String {
        guard let position else { return "predicate \"\(format)\": \(message)" }
        return "predicate \"\(format)\" at position \(position + 1): \(message)\n  \(format)\n  \(String(repeating: " ", count: position))^"
    }
}
