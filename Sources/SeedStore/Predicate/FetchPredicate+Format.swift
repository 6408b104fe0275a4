extension FetchPredicate: CustomStringConvertible {
    /// The predicate in format-string syntax, parseable again.
    public var description: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let parts): return parts.map { $0.nested }.joined(separator: " AND ")
        case .or(let parts): return parts.map { $0.nested }.joined(separator: " OR ")
        case .not(let inner): return "NOT " + inner.nested
        case .between(let value, let lower, let upper): return "\(value) BETWEEN {\(lower), \(upper)}"
        case .quantified(let quantifier, let inner): return "\(quantifier.rawValue) \(inner)"
        case .comparison(let lhs, let op, let rhs, let options):
            var modifier = ""
            if !options.isEmpty {
                modifier =
                    "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
            }
            return "\(lhs) \(op.rawValue)\(modifier) \(rhs)"
        }
    }

    private var nested: String {
        switch self {
        case .and, .or: "(\(description))"
        default: description
        }
    }
}

extension FetchPredicate.Expression: CustomStringConvertible {
    public var description: String {
        switch self {
        case .keyPath(let path): return Self.format(path)
        case .variable(let name, let path): return "$" + name + (path.isEmpty ? "" : "." + Self.format(path))
        case .evaluatedObject: return "SELF"
        // An object has no literal form: this names it for people, and does not parse back.
        case .object(let id): return "<\(id)>"
        case .subquery(let collection, let variable, let predicate, let path):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))" + (path.isEmpty ? "" : "." + Self.format(path))
        case .list(let items): return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .value(let value):
            switch value {
            case .null: return "nil"
            case .text(let text):
                // Backslashes, quotes and percent signs are escaped, so the string reads back as itself.
                let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return "\"" + escaped.replacingOccurrences(of: "%", with: "%%") + "\""
            case .blob(let data): return "\"<\(data.count) bytes>\""
            // Swift's shortest form reads back to the same Double.
            case .real(let number): return "\(number)"
            default: return value.displayText
            }
        }
    }

    /// Key path components joined by dots, a keyword or other non-name escaped with `#` (`#IN`).
    static func format(_ path: [String]) -> String {
        path.map { name in
            PredicateLexer.isName(name) && !PredicateLexer.keywords.contains(name.uppercased()) ? name : "#" + name
        }.joined(separator: ".")
    }
}
