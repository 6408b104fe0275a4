/// Splits a predicate format string into tokens, each with its character offset.
struct PredicateLexer {
    enum Token: Equatable {
        case identifier(String)
        /// `#name`: a key path component that may be a keyword (`#IN`).
        case escapedName(String)
        case variable(String)
        case string(String)
        case number(StoreValue)
        case symbol(String)
        /// `[c]`, `[d]` or `[cd]` after a string operator.
        case modifier(String)
        /// `%@`, `%K`, `%d`, … with the 1-based argument of a positional one (`%2$@`).
        case placeholder(String, index: Int?)
        case end

        var text: String {
            switch self {
            case .identifier(let name): name
            case .escapedName(let name): "#" + name
            case .variable(let name): "$" + name
            case .string(let value): "'\(value)'"
            case .number(let value): value.displayText
            case .symbol(let symbol): symbol
            case .modifier(let flags): "[\(flags)]"
            case .placeholder(let specifier, let index): "%" + (index.map { "\($0)$" } ?? "") + specifier
            case .end: "the end"
            }
        }
    }

    let format: String
    private let characters: [Character]
    private var index = 0
    private var previous: Token?

    init(_ format: String) {
        self.format = format
        characters = Array(format)
    }

    mutating func tokens() throws(FetchPredicateError) -> [(token: Token, position: Int)] {
        var result: [(Token, Int)] = []
        while true {
            while index < characters.count, Self.isSpace(characters[index]) { index += 1 }
            let start = index
            guard index < characters.count else {
                result.append((.end, start))
                return result
            }
            let token = try next()
            previous = token
            result.append((token, start))
        }
    }

    private mutating func next() throws(FetchPredicateError) -> Token {
        let character = characters[index]
        if Self.startsWord(character) {
            return .identifier(readWord())
        }
        if character == "#" {
            index += 1
            let name = readWord()
            guard !name.isEmpty else {
                throw error(at: index - 1, "expected a property name after #, as in #IN to name a property called IN")
            }
            return .escapedName(name)
        }
        if character == "$" {
            index += 1
            let name = readWord()
            guard !name.isEmpty else { throw error(at: index - 1, "expected a variable name after $") }
            return .variable(name)
        }
        if character == "\"" || character == "'" { return .string(try readString(quote: character)) }
        if character.isNumber || (character == "-" && index + 1 < characters.count && characters[index + 1].isNumber && previousAllowsSign)
        {
            return .number(try readNumber())
        }
        if character == "%" { return try readPlaceholder() }
        if character == "[" {
            let start = index
            index += 1
            let flags = readWord().lowercased()
            guard index < characters.count, characters[index] == "]", !flags.isEmpty, flags.allSatisfy({ $0 == "c" || $0 == "d" }) else {
                throw error(at: start, "expected a string modifier [c], [d] or [cd]")
            }
            index += 1
            return .modifier(flags)
        }
        for symbol in ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||", "=", "<", ">", "!", "(", ")", "{", "}", ",", "."] {
            let symbolCharacters = Array(symbol)
            if index + symbolCharacters.count <= characters.count,
                Array(characters[index..<index + symbolCharacters.count]) == symbolCharacters
            {
                index += symbolCharacters.count
                return .symbol(symbol)
            }
        }
        throw error(at: index, "unexpected character \"\(character)\"")
    }

    /// A minus sign starts a number only where an operand may start: at the beginning, after an
    /// operator, a comma, an opening bracket, a modifier or a keyword — not after an operand.
    private var previousAllowsSign: Bool {
        switch previous {
        case nil, .modifier: return true
        case .symbol(let symbol): return symbol != ")" && symbol != "}"
        case .identifier(let word):
            return [
                "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "ANY", "SOME", "ALL", "NONE",
            ]
            .contains(word.uppercased())
        case .escapedName, .variable, .string, .number, .placeholder, .end: return false
        }
    }

    /// White space only: a space carrying a combining mark is a character of its own, not space.
    private static func isSpace(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }

    /// The words the grammar reserves, which a key path cannot be named.
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "TRUE", "FALSE", "YES", "NO", "NIL", "NULL", "TRUEPREDICATE", "FALSEPREDICATE",
        "ANY", "SOME", "ALL", "NONE", "SELF", "SUBQUERY",
    ]

    /// Whether a whole string reads as one name (a property of a key path).
    static func isName(_ text: String) -> Bool {
        guard let first = text.first, startsWord(first) else { return false }
        return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "@" }
    }

    /// A name starts with a letter (not a combining mark), `_` or `@`.
    private static func startsWord(_ character: Character) -> Bool {
        if character == "_" || character == "@" { return true }
        switch character.unicodeScalars.first!.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    private mutating func readWord() -> String {
        let start = index
        while index < characters.count,
            characters[index].isLetter || characters[index].isNumber || characters[index] == "_" || characters[index] == "@"
        {
            index += 1
        }
        return String(characters[start..<index])
    }

    private mutating func readString(quote: Character) throws(FetchPredicateError) -> String {
        let start = index
        index += 1
        var value = ""
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == quote { return value }
            // `%%` is a literal percent sign, as in every format string; a lone % is itself.
            if character == "%", index < characters.count, characters[index] == "%" {
                index += 1
                value.append("%")
            } else if character == "\\" {
                guard index < characters.count else { break }
                let escaped = characters[index]
                index += 1
                switch escaped {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                default: value.append(escaped)
                }
            } else {
                value.append(character)
            }
        }
        throw error(at: start, "unterminated string: expected a closing \(quote)")
    }

    private mutating func readNumber() throws(FetchPredicateError) -> StoreValue {
        let start = index
        if characters[index] == "-" { index += 1 }
        if characters[index] == "0", index + 1 < characters.count, let radix = Self.radixes[characters[index + 1]] {
            return try readInteger(radix: radix, start: start)
        }
        while index < characters.count,
            characters[index].isNumber || characters[index] == "." || characters[index] == "e" || characters[index] == "E"
                || ((characters[index] == "-" || characters[index] == "+") && "eE".contains(characters[index - 1]))
        {
            index += 1
        }
        let text = String(characters[start..<index])
        if let integer = Int64(text) { return .integer(integer) }
        if let real = Double(text), real.isFinite { return .real(real) }
        throw error(at: start, "\"\(text)\" is not a number")
    }

    /// Reads `%@`, `%K`, `%d`, `%i`, `%ld`, `%lld`, `%u`, `%f`, `%lf`, or a positional `%2$@`.
    private mutating func readPlaceholder() throws(FetchPredicateError) -> Token {
        let start = index
        index += 1
        var digits = ""
        while index < characters.count, let digit = characters[index].wholeNumberValue, characters[index].isASCII {
            digits.append(String(digit))
            index += 1
        }
        var position: Int?
        if !digits.isEmpty {
            guard index < characters.count, characters[index] == "$", let number = Int(digits) else {
                throw error(at: start, "expected $ after the argument position of a placeholder, as in %1$@")
            }
            position = number
            index += 1
        }
        for specifier in ["lld", "llu", "ld", "lu", "lf", "@", "K", "d", "i", "u", "f"] {
            let letters = Array(specifier)
            if index + letters.count <= characters.count, Array(characters[index..<index + letters.count]) == letters {
                index += letters.count
                return .placeholder(specifier, index: position)
            }
        }
        if digits.isEmpty, index < characters.count, characters[index] == "%" {
            throw error(at: start, "%% is a literal percent sign, which belongs inside a quoted string")
        }
        throw error(at: start, "expected a placeholder %@, %K, %d, %i, %ld, %lld, %u, %f or %lf")
    }

    /// The prefixes after `0` of hexadecimal (`0x1E`), octal (`0o17`) and binary (`0b101`) integers.
    private static let radixes: [Character: Int] = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2]

    /// Reads `0x…`, `0o…` or `0b…` (after any minus sign) as an integer.
    private mutating func readInteger(radix: Int, start: Int) throws(FetchPredicateError) -> StoreValue {
        index += 2
        let digitsStart = index
        while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" { index += 1 }
        let digits = String(characters[digitsStart..<index])
        let text = String(characters[start..<index])
        let negative = characters[start] == "-"
        guard !digits.isEmpty, let magnitude = UInt64(digits, radix: radix) else {
            throw error(
                at: start,
                "\"\(text)\" is not a base-\(radix) integer; write digits 0-\(radix == 16 ? "9 and a-f" : String(radix - 1)) after its prefix"
            )
        }
        if negative, magnitude == UInt64(Int64.max) + 1 { return .integer(.min) }
        guard magnitude <= UInt64(Int64.max) else {
            throw error(at: start, "\"\(text)\" does not fit in a 64-bit integer")
        }
        return .integer(negative ? -Int64(magnitude) : Int64(magnitude))
    }

    private func error(at position: Int, _ message: String) -> FetchPredicateError {
        FetchPredicateError(format: format, position: position, message)
    }
}
