/// A parsed predicate in the common `NSPredicate` format subset.
///
/// ```swift
/// let predicate = try FetchPredicate("postcode BEGINSWITH[c] $PREFIX AND county.name != nil")
/// let request = FetchRequest(entity: "Postcode", predicate: predicate.substituting(["PREFIX": "ct"]))
/// ```
/// Mirrors the [Predicate Format String Syntax](https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html):
/// comparisons, `AND`/`OR`/`NOT`, `IN`, `BETWEEN`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`,
/// `MATCHES` with `[c]`/`[d]`/`[cd]`, key paths through to-one and to-many relationships,
/// `ANY`/`SOME`/`ALL`/`NONE`, `@count`/`@sum`/`@avg`/`@min`/`@max`, `SUBQUERY(…)`, `SELF`,
/// literals and `$VARIABLES`.
public indirect enum FetchPredicate: Sendable, Hashable {
    case constant(Bool)
    case and([FetchPredicate])
    case or([FetchPredicate])
    case not(FetchPredicate)
    case comparison(Expression, ComparisonOperator, Expression, StringOptions)
    case between(Expression, lower: Expression, upper: Expression)
    /// `ANY`/`SOME`, `ALL` or `NONE` before a comparison or `BETWEEN` whose left side goes
    /// through a to-many relationship: `ANY items.price > 5`.
    case quantified(Quantifier, FetchPredicate)

    /// The aggregate qualifiers of a comparison: `SOME` is read as ``any``.
    public enum Quantifier: String, Sendable, Hashable {
        case any = "ANY"
        case all = "ALL"
        case none = "NONE"
    }

    /// An operand.
    public enum Expression: Sendable, Hashable {
        /// A key path from the fetched entity: `name`, `county.name`.
        case keyPath([String])
        case value(StoreValue)
        /// `$NAME` or `$NAME.key.path`.
        case variable(String, keyPath: [String])
        /// `{1, 2, 3}`, the right side of `IN` or `BETWEEN`.
        case list([Expression])
        /// `SELF`: the object being evaluated.
        case evaluatedObject
        /// A managed object passed as a `%@` argument; it only ever matches in the store that holds it.
        case object(ObjectID)
        /// `SUBQUERY(collection, $variable, predicate)` followed by a key path, usually `.@count`:
        /// the elements of the collection for which the predicate holds.
        indirect case subquery(collection: Expression, variable: String, predicate: FetchPredicate, keyPath: [String])
    }

    /// A comparison between two expressions, by its format spelling.
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
        /// An ICU regular expression that must match the whole string.
        case matches = "MATCHES"
    }

    /// The `[c]` (case-insensitive) and `[d]` (diacritic-insensitive) modifiers.
    public struct StringOptions: OptionSet, Sendable, Hashable {
        /// The options' bits.
        public let rawValue: Int
        /// Options of these bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: compare without case, as Foundation's `compare(_:options:)` folds it.
        public static let caseInsensitive = StringOptions(rawValue: 1)
        /// `[d]`: compare without diacritics.
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
        case .quantified(_, let inner): inner.variableNames
        }
    }
}

extension FetchPredicate.Expression {
    var variableNames: Set<String> {
        switch self {
        case .keyPath, .value, .evaluatedObject, .object: []
        case .variable(let name, _): [name]
        case .list(let items): items.reduce(into: []) { $0.formUnion($1.variableNames) }
        // The subquery's own variable is bound by it, not substituted.
        case .subquery(let collection, let variable, let predicate, _):
            collection.variableNames.union(predicate.variableNames.subtracting([variable]))
        }
    }
}
