/// A value for a predicate `$VARIABLE`.
public enum PredicateVariable: Sendable, Hashable {
    case value(StoreValue)
    /// For `IN $LIST`.
    case list([StoreValue])
    /// An object's values by key path (`"postcode"`, `"county.name"`), for `$OBJECT.postcode`.
    case object([String: StoreValue])
}

extension FetchPredicate {
    /// Replaces `$VARIABLES` by values, like `NSPredicate.withSubstitutionVariables(_:)`.
    /// - Throws: ``FetchPredicateError`` when a variable has no value, or an object has no such key path.
    public func substituting(_ variables: [String: PredicateVariable], format: String = "") throws(FetchPredicateError) -> FetchPredicate {
        do {
            return try substituting(format: format) { name, keyPath throws(FetchPredicateError) in
                guard let variable = variables[name] else {
                    throw FetchPredicateError(format: format, position: nil, "no value for $\(name); pass it in the substitution variables")
                }
                switch variable {
                case .value(let value) where keyPath.isEmpty: return .value(value)
                case .list(let values) where keyPath.isEmpty: return .list(values.map(Expression.value))
                case .object(let values) where !keyPath.isEmpty:
                    guard let value = values[keyPath.joined(separator: ".")] else {
                        throw FetchPredicateError(
                            format: format, position: nil, "$\(name) has no value for key path \(keyPath.joined(separator: "."))")
                    }
                    return .value(value)
                default:
                    throw FetchPredicateError(
                        format: format, position: nil,
                        "$\(name)\(keyPath.isEmpty ? "" : "." + keyPath.joined(separator: ".")) does not match the kind of value given for $\(name)"
                    )
                }
            }
        } catch let error as FetchPredicateError {
            throw error
        } catch {
            throw FetchPredicateError(format: format, position: nil, "\(error)")
        }
    }

    /// Replaces each variable by what `resolve` returns for its name and key path.
    /// A `SUBQUERY`'s own variable is left in place inside it.
    func substituting(format: String, _ resolve: (String, [String]) throws -> Expression) throws -> FetchPredicate {
        func resolved(_ expression: Expression) throws -> Expression {
            switch expression {
            case .keyPath, .value, .evaluatedObject, .object: return expression
            case .variable(let name, let keyPath): return try resolve(name, keyPath)
            case .list(let items):
                var members: [Expression] = []
                for item in items { members.append(try resolved(item)) }
                return .list(members)
            case .subquery(let collection, let variable, let predicate, let keyPath):
                let inner = try predicate.substituting(format: format) { name, path in
                    name == variable ? .variable(name, keyPath: path) : try resolve(name, path)
                }
                return .subquery(collection: try resolved(collection), variable: variable, predicate: inner, keyPath: keyPath)
            }
        }
        switch self {
        case .constant: return self
        case .and(let parts):
            var resolved: [FetchPredicate] = []
            for part in parts { resolved.append(try part.substituting(format: format, resolve)) }
            return .and(resolved)
        case .or(let parts):
            var resolved: [FetchPredicate] = []
            for part in parts { resolved.append(try part.substituting(format: format, resolve)) }
            return .or(resolved)
        case .not(let inner): return .not(try inner.substituting(format: format, resolve))
        case .comparison(let lhs, let op, let rhs, let options):
            return .comparison(try resolved(lhs), op, try resolved(rhs), options)
        case .between(let value, let lower, let upper):
            return .between(try resolved(value), lower: try resolved(lower), upper: try resolved(upper))
        case .quantified(let quantifier, let inner): return .quantified(quantifier, try inner.substituting(format: format, resolve))
        }
    }
}
