/// A parsed predicate in the common `NSPredicate` format subset.
///
/// ```swift
/// let predicate = try FetchPredicate("postcode BEGINSWITH[c] $PREFIX AND county.name != nil")
/// let request = FetchRequest(entity: "Postcode", predicate: predicate.substituting(["PREFIX": "ct"]))
/// ```
/// Mirrors the [Predicate Format String Syntax](https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html):
/// comparisons, `AND`/`OR`/`NOT`, `IN`, `BETWEEN`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`
/// with `[c]`/`[d]`/`[cd]`, key paths through to-one relationships, literals and `$VARIABLES`.
public indirect enum FetchPredicate: Sendable, Hashable {
    case constant(Bool)
    case and([FetchPredicate])
    case or([FetchPredicate])
    case not(FetchPredicate)
    case comparison(Expression, ComparisonOperator, Expression, StringOptions)
    case between(Expression, lower: Expression, upper: Expression)

    /// An operand.
    public enum Expression: Sendable, Hashable {
        /// A key path from the fetched entity: `name`, `county.name`.
        case keyPath([String])
        case value(StoreValue)
        /// `$NAME` or `$NAME.key.path`.
        case variable(String, keyPath: [String])
        /// `{1, 2, 3}`, the right side of `IN` or `BETWEEN`.
        case list([Expression])
    }

    public enum ComparisonOperator: String, Sendable, Hashable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case `in` = "IN"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case contains = "CONTAINS"
        case like = "LIKE"
    }

    /// The `[c]` (case-insensitive) and `[d]` (diacritic-insensitive) modifiers.
    public struct StringOptions: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let caseInsensitive = StringOptions(rawValue: 1)
        public static let diacriticInsensitive = StringOptions(rawValue: 2)
    }

    /// Parses a predicate format string.
    /// - Throws: ``FetchPredicateError`` naming the position and what was expected.
    public init(_ format: String) throws(FetchPredicateError) {
        var parser = PredicateParser(format)
        self = try parser.parse()
    }

    /// The names of the `$VARIABLES` the predicate uses.
    public var variableNames: Set<String> {
        switch self {
        case .constant: []
        case .and(let parts), .or(let parts): parts.reduce(into: []) { $0.formUnion($1.variableNames) }
        case .not(let inner): inner.variableNames
        case .comparison(let lhs, _, let rhs, _): lhs.variableNames.union(rhs.variableNames)
        case .between(let value, let lower, let upper): value.variableNames.union(lower.variableNames).union(upper.variableNames)
        }
    }
}

extension FetchPredicate.Expression {
    var variableNames: Set<String> {
        switch self {
        case .keyPath, .value: []
        case .variable(let name, _): [name]
        case .list(let items): items.reduce(into: []) { $0.formUnion($1.variableNames) }
        }
    }
}
