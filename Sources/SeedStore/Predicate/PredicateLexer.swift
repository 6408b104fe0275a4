/// Splits a predicate format string into tokens, each with its character offset.
struct PredicateLexer {
    enum Token: Equatable {
        case identifier(String)
        case variable(String)
        case string(String)
        case number(StoreValue)
        case symbol(String)
        /// `[c]`, `[d]` or `[cd]` after a string operator.
        case modifier(String)
        case end

        var text: String {
            switch self {
            case .identifier(let name): name
            case .variable(let name): "$" + name
            case .string(let value): "'\(value)'"
            case .number(let value): value.displayText
            case .symbol(let symbol): symbol
            case .modifier(let flags): "[\(flags)]"
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
        if character == "$" {
            index += 1
            let name = readWord()
            guard !name.isEmpty else { throw error(at: index - 1, "expected a variable name after $") }
            return .variable(name)
        }
        if character == "\"" || character == "'" { return .string(try readString(quote: character)) }
        if character.isNumber || (character == "-" && index + 1 < characters.count && characters[index + 1].isNumber && previousAllowsSign) {
            return .number(try readNumber())
        }
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
            return ["AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"].contains(word.uppercased())
        case .variable, .string, .number, .end: return false
        }
    }

    /// White space only: a space carrying a combining mark is a character of its own, not space.
    private static func isSpace(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy(\.properties.isWhitespace)
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
        while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" || characters[index] == "@" {
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
            if character == "\\" {
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
        while index < characters.count, characters[index].isNumber || characters[index] == "." || characters[index] == "e" || characters[index] == "E"
            || ((characters[index] == "-" || characters[index] == "+") && "eE".contains(characters[index - 1]))
        {
            index += 1
        }
        let text = String(characters[start..<index])
        if let integer = Int64(text) { return .integer(integer) }
        if let real = Double(text), real.isFinite { return .real(real) }
        throw error(at: start, "\"\(text)\" is not a number")
    }

    private func error(at position: Int, _ message: String) -> FetchPredicateError {
        FetchPredicateError(format: format, position: position, message)
    }
}
