/// A recursive-descent parser for the predicate format subset.
///
///     predicate  := and ( (OR | ||) and )*
///     and        := unary ( (AND | &&) unary )*
///     unary      := (NOT | !) unary | ( predicate ) | TRUEPREDICATE | FALSEPREDICATE
///                 | (ANY | SOME | ALL | NONE) comparison | comparison
///     comparison := operand operator[modifier] operand | operand BETWEEN operand
///     operand    := keypath | SELF[.keypath] | literal | $VARIABLE[.keypath] | { operand, … }
///                 | SUBQUERY ( operand , $VARIABLE , predicate ) [.keypath]
///                 | %@ | %K[.keypath] | %d | %f | …
///     keypath    := name ( . name )*      where a name is a word or #word (a keyword as a name)
///
/// Apple's [BNF](https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/Predicates/Articles/pBNF.html)
/// leaves precedence open; as in SQL and C, NOT binds tightest, then AND, then OR, and AND and OR
/// group from the left.
struct PredicateParser {
    private typealias Token = PredicateLexer.Token

    private let format: String
    private var tokens: [(token: Token, position: Int)] = []
    private var index = 0
    private var lexerError: FetchPredicateError?
    /// How deep parentheses and NOTs may nest: deep enough for any real predicate, shallow enough
    /// that a hostile one cannot exhaust the stack.
    static let maximumDepth = 64
    private var depth = 0
    private var binder: PlaceholderBinder

    init(_ format: String, arguments: PlaceholderBinder.Arguments = .typed([])) {
        self.format = format
        binder = PlaceholderBinder(format: format, arguments: arguments)
        var lexer = PredicateLexer(format)
        do { tokens = try lexer.tokens() } catch { lexerError = error }
    }

    mutating func parse() throws(FetchPredicateError) -> FetchPredicate {
        if let lexerError { throw lexerError }
        if current == .end { throw expected("a predicate") }
        let predicate = try parseOr()
        guard current == .end else { throw expected("AND, OR or the end of the predicate") }
        try binder.finish()
        return predicate
    }

    private var current: Token { tokens[index].token }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func isKeyword(_ words: String...) -> Bool {
        if case .identifier(let name) = current { return words.contains(name.uppercased()) }
        if case .symbol(let symbol) = current { return words.contains(symbol) }
        return false
    }

    private mutating func parseOr() throws(FetchPredicateError) -> FetchPredicate {
        var parts = [try parseAnd()]
        while isKeyword("OR", "||") {
            advance()
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws(FetchPredicateError) -> FetchPredicate {
        var parts = [try parseUnary()]
        while isKeyword("AND", "&&") {
            advance()
            parts.append(try parseUnary())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseUnary() throws(FetchPredicateError) -> FetchPredicate {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw FetchPredicateError(
                format: format, position: tokens[index].position, "the predicate nests deeper than \(Self.maximumDepth) levels; simplify it"
            )
        }
        if isKeyword("NOT", "!") {
            advance()
            return .not(try parseUnary())
        }
        if current == .symbol("(") {
            advance()
            let inner = try parseOr()
            guard current == .symbol(")") else { throw expected("a closing )") }
            advance()
            return inner
        }
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .constant(false)
        }
        if case .identifier(let word) = current, let quantifier = Self.quantifiers[word.uppercased()] {
            advance()
            return .quantified(quantifier, try parseComparison())
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(FetchPredicateError) -> FetchPredicate {
        let lhs = try parseOperand()
        if isKeyword("BETWEEN") {
            advance()
            let bounds = try parseOperand()
            switch bounds {
            case .list(let items) where items.count == 2:
                return .between(lhs, lower: items[0], upper: items[1])
            case .variable:
                throw FetchPredicateError(
                    format: format, position: tokens[index - 1].position, "BETWEEN takes a literal pair {lower, upper}")
            default:
                throw FetchPredicateError(
                    format: format, position: tokens[index - 1].position, "expected a pair {lower, upper} after BETWEEN")
            }
        }
        let op = try parseOperator()
        var options: FetchPredicate.StringOptions = []
        if case .modifier(let flags) = current {
            if flags.contains("c") { options.insert(.caseInsensitive) }
            if flags.contains("d") { options.insert(.diacriticInsensitive) }
            advance()
        }
        let rhs = try parseOperand()
        return .comparison(lhs, op, rhs, options)
    }

    private mutating func parseOperator() throws(FetchPredicateError) -> FetchPredicate.ComparisonOperator {
        let op: FetchPredicate.ComparisonOperator
        switch current {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        case .identifier(let word):
            switch word.uppercased() {
            case "IN": op = .in
            case "BEGINSWITH": op = .beginsWith
            case "ENDSWITH": op = .endsWith
            case "CONTAINS": op = .contains
            case "LIKE": op = .like
            case "MATCHES": op = .matches
            default:
                throw expected("a comparison operator (==, !=, <, <=, >, >=, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, BETWEEN)")
            }
        default: throw expected("a comparison operator (==, !=, <, <=, >, >=, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, BETWEEN)")
        }
        advance()
        return op
    }

    private mutating func parseOperand() throws(FetchPredicateError) -> FetchPredicate.Expression {
        switch current {
        case .string(let value):
            advance()
            return .value(.text(value))
        case .number(let value):
            advance()
            return .value(value)
        case .variable(let name):
            advance()
            return .variable(name, keyPath: try parseKeyPathTail())
        case .placeholder(let specifier, let argument):
            let operand = try binder.operand(specifier: specifier, index: argument, position: tokens[index].position)
            advance()
            // `%K.name` goes on from the key path the argument names.
            if case .keyPath(let path) = operand { return .keyPath(path + (try parseKeyPathTail())) }
            return operand
        case .escapedName(let name):
            advance()
            return .keyPath([name] + (try parseKeyPathTail()))
        case .symbol("{"):
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else {
                throw FetchPredicateError(
                    format: format, position: tokens[index].position,
                    "the predicate nests deeper than \(Self.maximumDepth) levels; simplify it")
            }
            advance()
            var items: [FetchPredicate.Expression] = []
            if current != .symbol("}") {
                items.append(try parseOperand())
                while current == .symbol(",") {
                    advance()
                    items.append(try parseOperand())
                }
            }
            guard current == .symbol("}") else { throw expected("a comma or a closing }") }
            advance()
            return .list(items)
        case .identifier(let name):
            switch name.uppercased() {
            case "TRUE", "YES":
                advance()
                return .value(.integer(1))
            case "FALSE", "NO":
                advance()
                return .value(.integer(0))
            case "NIL", "NULL":
                advance()
                return .value(.null)
            case "SELF":
                advance()
                let path = try parseKeyPathTail()
                return path.isEmpty ? .evaluatedObject : .keyPath(path)
            case "SUBQUERY": return try parseSubquery()
            case _ where PredicateLexer.keywords.contains(name.uppercased()):
                throw expected("a key path, a literal or a $VARIABLE")
            default:
                advance()
                return .keyPath([name] + (try parseKeyPathTail()))
            }
        default:
            throw expected("a key path, a literal or a $VARIABLE")
        }
    }

    /// `SUBQUERY(collection, $x, predicate)` and the key path after it, such as `.@count`.
    private mutating func parseSubquery() throws(FetchPredicateError) -> FetchPredicate.Expression {
        advance()
        guard current == .symbol("(") else { throw expected("( after SUBQUERY") }
        advance()
        depth += 1
        defer { depth -= 1 }
        let collection = try parseOperand()
        guard current == .symbol(",") else { throw expected("a comma after the collection of SUBQUERY(collection, $x, predicate)") }
        advance()
        guard case .variable(let variable) = current else {
            throw expected("a $VARIABLE naming each element, as in SUBQUERY(items, $x, $x.price > 5)")
        }
        advance()
        guard current == .symbol(",") else { throw expected("a comma after the variable of SUBQUERY(collection, $x, predicate)") }
        advance()
        let predicate = try parseOr()
        guard current == .symbol(")") else { throw expected("a closing ) of SUBQUERY") }
        advance()
        return .subquery(collection: collection, variable: variable, predicate: predicate, keyPath: try parseKeyPathTail())
    }

    private mutating func parseKeyPathTail() throws(FetchPredicateError) -> [String] {
        var path: [String] = []
        while current == .symbol(".") {
            advance()
            switch current {
            case .identifier(let name), .escapedName(let name): path.append(name)
            default: throw expected("a property name after .")
            }
            advance()
        }
        return path
    }

    private static let quantifiers: [String: FetchPredicate.Quantifier] = ["ANY": .any, "SOME": .any, "ALL": .all, "NONE": .none]

    private func expected(_ what: String) -> FetchPredicateError {
        FetchPredicateError(format: format, position: tokens[index].position, "expected \(what), found \(current.text)")
    }
}
