/// Binds a format string's placeholders (`%@`, `%K`, `%d`, `%f`, …) to arguments, in order or by
/// position (`%2$@`), as `NSPredicate(format:arguments:)` does: the values become part of the
/// parsed predicate, so it prints and fetches as if they had been written as literals.
struct PlaceholderBinder {
    /// Where the arguments come from.
    enum Arguments {
        /// Values from Swift, checked against each placeholder's type.
        case typed([PredicateArgument])
        /// Text from a command line, read as each placeholder's type asks (`%d` an integer, `%f` a number).
        case text([String])
    }

    /// The placeholders' conversions, as `NSPredicate` names them.
    static let integerSpecifiers: Set<String> = ["d", "i", "ld", "lld", "u", "lu", "llu"]
    static let realSpecifiers: Set<String> = ["f", "lf"]
    static let specifiers = integerSpecifiers.union(realSpecifiers).union(["@", "K"])

    private let format: String
    private let arguments: Arguments
    private var next = 0
    private var ordinal = 0
    private var used: Set<Int> = []

    init(format: String, arguments: Arguments) {
        self.format = format
        self.arguments = arguments
    }

    private var count: Int {
        switch arguments {
        case .typed(let values): values.count
        case .text(let values): values.count
        }
    }

    /// The operand a placeholder stands for.
    /// - Parameters:
    ///   - specifier: `@`, `K`, `d`, `f`, …
    ///   - index: the 1-based argument of a positional placeholder (`%2$@`), or nil for the next one.
    ///   - position: the placeholder's offset in the format string, for errors.
    mutating func operand(specifier: String, index: Int?, position: Int) throws(FetchPredicateError) -> FetchPredicate.Expression {
        ordinal += 1
        let name = "%" + (index.map { "\($0)$" } ?? "") + specifier + " (placeholder \(ordinal))"
        let argument: Int
        if let index {
            guard index >= 1 else { throw error(position, "\(name): argument positions count from 1") }
            argument = index - 1
        } else {
            argument = next
            next += 1
        }
        guard argument < count else {
            throw error(position, "\(name) has no argument: \(count) given; pass one argument for each placeholder, in order")
        }
        used.insert(argument)
        switch arguments {
        case .typed(let values): return try typed(values[argument], specifier: specifier, name: name, position: position)
        case .text(let values): return try text(values[argument], specifier: specifier, name: name, position: position)
        }
    }

    /// Refuses arguments no placeholder took.
    func finish() throws(FetchPredicateError) {
        guard used.count < count else { return }
        let unused = (0..<count).filter { !used.contains($0) }.map { String($0 + 1) }
        throw FetchPredicateError(
            format: format, position: nil,
            "\(count) arguments given but argument \(unused.joined(separator: ", ")) matches no placeholder; pass one argument for each %@, %K, %d or %f"
        )
    }

    private func typed(_ argument: PredicateArgument, specifier: String, name: String, position: Int) throws(FetchPredicateError)
        -> FetchPredicate.Expression
    {
        switch (specifier, argument) {
        case ("@", .value(let value)): return .value(value)
        case ("@", .object(let id)): return .object(id)
        case ("@", .list(let items)):
            var members: [FetchPredicate.Expression] = []
            for item in items {
                switch item {
                case .value(let value): members.append(.value(value))
                case .object(let id): members.append(.object(id))
                case .list: throw error(position, "\(name): a list inside a list cannot be compared; pass a flat array")
                }
            }
            return .list(members)
        case ("K", .value(.text(let path))): return try keyPath(path, name: name, position: position)
        case ("K", _):
            throw error(position, "\(name) takes a key path as a string, such as \"county.name\", not \(Self.describe(argument))")
        case (_, .value(.integer(let number))) where Self.integerSpecifiers.contains(specifier): return .value(.integer(number))
        case (_, _) where Self.integerSpecifiers.contains(specifier):
            throw error(position, "\(name) takes an integer, not \(Self.describe(argument)); use %@ or %f for other values")
        case (_, .value(.integer(let number))): return .value(.real(Double(number)))
        case (_, .value(.real(let number))): return .value(.real(number))
        default: throw error(position, "\(name) takes a number, not \(Self.describe(argument)); use %@ for other values")
        }
    }

    private func text(_ argument: String, specifier: String, name: String, position: Int) throws(FetchPredicateError)
        -> FetchPredicate.Expression
    {
        switch specifier {
        case "@": return .value(.text(argument))
        case "K": return try keyPath(argument, name: name, position: position)
        case _ where Self.integerSpecifiers.contains(specifier):
            guard let number = Int64(argument) else { throw error(position, "\(name) takes an integer, not \"\(argument)\"") }
            return .value(.integer(number))
        default:
            guard let number = Double(argument), number.isFinite else {
                throw error(position, "\(name) takes a number, not \"\(argument)\"")
            }
            return .value(.real(number))
        }
    }

    /// A `%K` argument: names joined by dots, each a word the format syntax could hold. A keyword
    /// is a name here, as in NSPredicate; the predicate prints it escaped (`#IN`).
    private func keyPath(_ path: String, name: String, position: Int) throws(FetchPredicateError) -> FetchPredicate.Expression {
        let names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for component in names where !PredicateLexer.isName(component) {
            throw error(position, "\(name): \"\(path)\" is not a key path; give property names joined by dots, such as \"county.name\"")
        }
        return .keyPath(names)
    }

    private static func describe(_ argument: PredicateArgument) -> String {
        switch argument {
        case .list: "a list"
        case .object(let id): "the object \(id)"
        case .value(.null): "nil"
        case .value(.text(let text)): "the string \"\(text)\""
        case .value(.blob): "data"
        case .value(let value): value.displayText
        }
    }

    private func error(_ position: Int, _ message: String) -> FetchPredicateError {
        FetchPredicateError(format: format, position: position, message)
    }
}
