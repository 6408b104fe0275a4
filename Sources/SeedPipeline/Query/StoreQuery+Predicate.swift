import SeedStore

extension StoreQuery {
    /// The predicate with its arguments and variables bound.
    /// - Throws: ``FetchPredicateError`` for a predicate that does not parse, arguments that do not fit
    ///   its placeholders, or a variable without a value or without a use.
    func parsedPredicate() throws(FetchPredicateError) -> FetchPredicate? {
        guard let predicate else {
            guard arguments.isEmpty, variables.isEmpty else {
                throw FetchPredicateError(
                    format: "", position: nil, "arguments and variables need a predicate to fill; give one with --where")
            }
            return nil
        }
        let parsed = try FetchPredicate(predicate, textArguments: arguments)
        for name in variables.keys.sorted() where !parsed.variableNames.contains(name) {
            throw FetchPredicateError(format: predicate, position: nil, "a value is given for $\(name), which the predicate does not use")
        }
        for name in parsed.variableNames.sorted() where variables[name] == nil {
            throw FetchPredicateError(format: predicate, position: nil, "no value for $\(name); pass --var \(name)=VALUE")
        }
        return try parsed.substituting(variables.mapValues { .value(.text($0)) }, format: predicate)
    }
}
