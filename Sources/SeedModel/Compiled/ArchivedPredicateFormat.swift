import Foundation

/// Writes an archived `NSPredicate` or `NSExpression` in predicate format syntax, as Core Data
/// prints it: `authorAlias == $FETCH_SOURCE.alias`, `count:(pages)`.
///
/// Covers what models hold: comparisons (with `ANY`/`ALL` and `[cd]` options), `AND`/`OR`/`NOT`,
/// `TRUEPREDICATE`, key paths, variables, constants, `SELF` and function expressions. Anything
/// else is refused with the class name, so a derivation is never hashed from a wrong text.
/// See [Predicate Format String Syntax](https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html).
struct ArchivedPredicateFormat {
    let archive: KeyedArchive
    /// How deep predicates and expressions nest before the archive is taken as looping.
    static let maximumDepth = 64
    private var depth = 0

    init(archive: KeyedArchive) {
        self.archive = archive
    }

    struct Unsupported: Error {
        let what: String
    }

    /// This formatter one level deeper, or a refusal when the nesting is implausibly deep.
    private func deeper() throws(Unsupported) -> ArchivedPredicateFormat {
        guard depth < Self.maximumDepth else {
            throw Unsupported(what: "expressions nested more than \(Self.maximumDepth) deep (a damaged archive)")
        }
        var next = self
        next.depth += 1
        return next
    }

    /// The predicate's format, or nil for `$null`.
    func predicate(_ value: PropertyListValue?) throws(Unsupported) -> String? {
        guard let value, archive.resolve(value) != .null else { return nil }
        guard let object = archive.object(value) else { throw Unsupported(what: "a predicate that is not an object") }
        return try predicate(object)
    }

    private func predicate(_ object: ArchivedObject) throws(Unsupported) -> String {
        if object.isKind(of: "NSTruePredicate") { return "TRUEPREDICATE" }
        if object.isKind(of: "NSFalsePredicate") { return "FALSEPREDICATE" }
        if object.isKind(of: "NSCompoundPredicate") {
            var parts: [String] = []
            for item in archive.elements(object["NSSubpredicates"]) {
                guard let sub = archive.object(item) else { throw Unsupported(what: "an empty subpredicate") }
                let text = try deeper().predicate(sub)
                parts.append(sub.isKind(of: "NSCompoundPredicate") ? "(\(text))" : text)
            }
            switch archive.integer(object["NSCompoundPredicateType"]) {
            case 0: return "NOT " + (parts.first ?? "TRUEPREDICATE")
            case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            default: throw Unsupported(what: "a compound predicate of unknown type")
            }
        }
        guard object.isKind(of: "NSComparisonPredicate"), let operation = archive.object(object["NSPredicateOperator"]) else {
            throw Unsupported(what: "an \(object.className)")
        }
        let names: [Int64: String] = [
            0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH",
            9: "ENDSWITH", 10: "IN", 99: "CONTAINS", 100: "BETWEEN",
        ]
        guard let type = archive.integer(operation["NSOperatorType"]), let name = names[type] else {
            throw Unsupported(what: "a comparison with a custom selector")
        }
        let options = archive.integer(operation["NSOptions"]) ?? archive.integer(operation["NSFlags"]) ?? 0
        let letters = (options & 1 != 0 ? "c" : "") + (options & 2 != 0 ? "d" : "") + (options & 8 != 0 ? "n" : "")
        let modifier = archive.integer(operation["NSModifier"]) ?? archive.integer(object["NSModifier"]) ?? 0
        let prefix = modifier == 1 ? "ALL " : modifier == 2 ? "ANY " : ""
        let left = try deeper().expression(object["NSLeftExpression"])
        let right = try deeper().expression(object["NSRightExpression"])
        return "\(prefix)\(left) \(name)\(letters.isEmpty ? "" : "[\(letters)]") \(right)"
    }

    /// The expression's format.
    func expression(_ value: PropertyListValue?) throws(Unsupported) -> String {
        guard let object = archive.object(value) else { throw Unsupported(what: "a missing expression") }
        switch archive.integer(object["NSExpressionType"]) {
        case 0: return try constant(object["NSConstantValue"])
        case 1: return "SELF"
        case 2: return "$" + (archive.string(object["NSVariable"]) ?? "")
        case 10: return archive.string(object["NSKeyPath"]) ?? ""
        case 15: return "ANYKEY"
        case 3, 4: return try function(object)
        default: throw Unsupported(what: "an \(object.className)")
        }
    }

    /// Key paths are archived as a `valueForKey:` or `valueForKeyPath:` function on an operand;
    /// built-in functions as a selector on `_NSPredicateUtilities`: `count:(pages)`.
    private func function(_ object: ArchivedObject) throws(Unsupported) -> String {
        let selector = archive.string(object["NSSelectorName"]) ?? ""
        var arguments: [String] = []
        for item in archive.elements(object["NSArguments"]) { arguments.append(try deeper().expression(item)) }
        let operand = archive.object(object["NSOperand"])
        if selector == "valueForKey:" || selector == "valueForKeyPath:", arguments.count == 1 {
            guard let operand, archive.integer(operand["NSExpressionType"]) != 1 else { return arguments[0] }
            return try deeper().expression(object["NSOperand"]) + "." + arguments[0]
        }
        let utilities = operand.map { archive.integer($0["NSExpressionType"]) == 0 && $0["NSConstantValue"] == nil } ?? true
        if utilities { return "\(selector)(\(arguments.joined(separator: ", ")))" }
        let rest = arguments.map { ", " + $0 }.joined()
        return "FUNCTION(\(try deeper().expression(object["NSOperand"])), \"\(selector)\"\(rest))"
    }

    private func constant(_ value: PropertyListValue?) throws(Unsupported) -> String {
        guard let value else { return "nil" }
        switch archive.resolve(value) {
        case .null: return "nil"
        case .bool(let flag): return flag ? "1" : "0"
        case .integer(let number): return String(number)
        case .real(let number): return KeyedArchive.text(of: number)
        case .string(let text): return quoted(text)
        default: break
        }
        if let text = archive.string(value) { return quoted(text) }
        guard let object = archive.object(value) else { throw Unsupported(what: "a constant of an unknown kind") }
        if case .real(let seconds)? = object["NS.time"].map(archive.resolve) { return "CAST(\(seconds), \"NSDate\")" }
        if object["NS.objects"] != nil, object["NS.keys"] == nil {
            var items: [String] = []
            for item in archive.elements(value) { items.append(try deeper().constant(item)) }
            return "{" + items.joined(separator: ", ") + "}"
        }
        throw Unsupported(what: "a constant \(object.className)")
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
