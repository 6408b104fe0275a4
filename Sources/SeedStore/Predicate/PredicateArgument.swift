import Foundation

/// A value for a format placeholder (`%@`, `%K`, `%d`, `%f`) of ``FetchPredicate/init(_:_:)``.
///
/// ```swift
/// let predicate = try FetchPredicate("%K == %@ AND stock > %d AND sku IN %@", "county.name", "Kent", 2, ["A-1", "B-1"])
/// ```
public enum PredicateArgument: Sendable, Hashable {
    /// One value, as the store keeps it.
    case value(StoreValue)
    /// An array, for `IN %@` or `BETWEEN %@`.
    case list([PredicateArgument])
    /// A managed object, for `SELF == %@`, `department == %@` or `%@ IN employees`. It matches
    /// only in the store that holds it; an unsaved object matches nothing.
    case object(ObjectID)
}

/// A Swift value that can be passed for a format placeholder.
public protocol PredicateArgumentConvertible {
    var predicateArgument: PredicateArgument { get }
}

extension PredicateArgument: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { self }
}

extension StoreValue: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(self) }
}

extension String: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.text(self)) }
}

extension Substring: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.text(String(self))) }
}

extension Int: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension Int64: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(self)) }
}

extension Int32: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension Int16: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension Double: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.real(self)) }
}

extension Float: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.real(Double(self))) }
}

extension Decimal: PredicateArgumentConvertible {
    /// A Decimal compares as a number; SQLite holds numbers as 64-bit doubles at most.
    public var predicateArgument: PredicateArgument { .value(.real(NSDecimalNumber(decimal: self).doubleValue)) }
}

extension Bool: PredicateArgumentConvertible {
    /// Booleans are stored as 1 and 0.
    public var predicateArgument: PredicateArgument { .value(.integer(self ? 1 : 0)) }
}

extension Date: PredicateArgumentConvertible {
    /// Dates are stored as seconds since 1970.
    public var predicateArgument: PredicateArgument { .value(StoreValue(self)) }
}

extension UUID: PredicateArgumentConvertible {
    /// UUIDs are stored as lowercase text.
    public var predicateArgument: PredicateArgument { .value(.text(uuidString.lowercased())) }
}

extension Data: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.blob(self)) }
}

extension Optional: PredicateArgumentConvertible where Wrapped: PredicateArgumentConvertible {
    /// `nil` is the predicate's `nil`.
    public var predicateArgument: PredicateArgument { self?.predicateArgument ?? .value(.null) }
}

extension Array: PredicateArgumentConvertible where Element: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .list(map(\.predicateArgument)) }
}

extension ObjectID: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .object(self) }
}
