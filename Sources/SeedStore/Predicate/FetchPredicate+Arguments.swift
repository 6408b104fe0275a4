extension FetchPredicate {
    /// Parses a predicate format string with arguments for its placeholders, like
    /// [`NSPredicate(format:_:)`](https://developer.apple.com/documentation/foundation/nspredicate/1416828-init).
    ///
    /// ```swift
    /// let kent = try FetchPredicate("county.name == %@ AND %K > %d", "Kent", "population", 1000)
    /// let some = try FetchPredicate("sku IN %@ OR added > %@", ["A-1", "B-1"], Date())
    /// ```
    /// `%@` takes any value (an array for `IN` or `BETWEEN`), `%K` a key path, `%d`, `%i`, `%ld`,
    /// `%lld` and `%u` an integer, `%f` and `%lf` a number; `%2$@` takes the second argument.
    /// Inside quotes a placeholder is literal text, and `%%` is a percent sign.
    /// - Throws: ``FetchPredicateError`` for a syntax error, a placeholder without an argument or with
    ///   an argument of the wrong type (naming the placeholder's position), or an argument no placeholder takes.
    public init(_ format: String, _ arguments: any PredicateArgumentConvertible...) throws(FetchPredicateError) {
        try self.init(format, arguments: arguments)
    }

    /// Parses a predicate format string with an array of arguments for its placeholders.
    /// - Throws: ``FetchPredicateError`` as ``init(_:_:)`` does.
    public init(_ format: String, arguments: [any PredicateArgumentConvertible]) throws(FetchPredicateError) {
        var parser = PredicateParser(format, arguments: .typed(arguments.map(\.predicateArgument)))
        self = try parser.parse()
    }

    /// Parses a predicate format string with arguments given as text, as on a command line: each
    /// is read as its placeholder asks (`%d` an integer, `%f` a number, `%@` a string, `%K` a key path).
    /// - Throws: ``FetchPredicateError`` as ``init(_:_:)`` does, or for text that is not the number asked for.
    public init(_ format: String, textArguments: [String]) throws(FetchPredicateError) {
        var parser = PredicateParser(format, arguments: .text(textArguments))
        self = try parser.parse()
    }
}
