/// The minimum and maximum set in Xcode's inspector, which momc archives as validation
/// predicates rather than as values.
extension CompiledModelReader {
    /// Reads `length >= 3` and `length <= 50` (text and data) or `SELF >= 1` and `SELF <= 9`
    /// (numbers and dates, a date as seconds since 2001) from an attribute's
    /// `NSValidationPredicates`, looking inside `AND`s; any other validation predicate is not a
    /// range and is left alone.
    static func valueRange(_ value: PropertyListValue?, in archive: KeyedArchive) -> (minimum: String?, maximum: String?) {
        var range: (minimum: String?, maximum: String?) = (nil, nil)
        var pending = archive.elements(value).compactMap { archive.object($0) }
        // A bound on the work, so an archive whose compound predicates loop cannot run for ever.
        var budget = 256
        while let predicate = pending.popLast(), budget > 0 {
            budget -= 1
            if predicate.isKind(of: "NSCompoundPredicate") {
                if archive.integer(predicate["NSCompoundPredicateType"]) == 1 {
                    pending += archive.elements(predicate["NSSubpredicates"]).compactMap { archive.object($0) }
                }
                continue
            }
            guard predicate.isKind(of: "NSComparisonPredicate"), isRangeOperand(predicate["NSLeftExpression"], in: archive),
                let bound = number(predicate["NSRightExpression"], in: archive),
                let operation = archive.object(predicate["NSPredicateOperator"])
            else { continue }
            switch archive.integer(operation["NSOperatorType"]) {
            case 3: range.minimum = bound
            case 1: range.maximum = bound
            default: break
            }
        }
        return range
    }

    /// `SELF`, or the key path `length` on `SELF`.
    private static func isRangeOperand(_ value: PropertyListValue?, in archive: KeyedArchive) -> Bool {
        guard let expression = archive.object(value) else { return false }
        switch archive.integer(expression["NSExpressionType"]) {
        case 1:
            return true
        case 3:
            let arguments = archive.elements(expression["NSArguments"]).compactMap { archive.object($0) }
            return arguments.count == 1 && archive.string(arguments[0]["NSKeyPath"]) == "length"
                && archive.object(expression["NSOperand"]).map { archive.integer($0["NSExpressionType"]) == 1 } ?? true
        default:
            return false
        }
    }

    /// A constant number, or a constant date as its seconds since 2001.
    private static func number(_ value: PropertyListValue?, in archive: KeyedArchive) -> String? {
        guard let expression = archive.object(value), archive.integer(expression["NSExpressionType"]) == 0,
            let constant = expression["NSConstantValue"]
        else { return nil }
        switch archive.resolve(constant) {
        case .integer(let number): return String(number)
        case .real(let number): return KeyedArchive.text(of: number)
        default: break
        }
        guard case .real(let seconds)? = archive.object(constant)?["NS.time"].map(archive.resolve) else { return nil }
        return KeyedArchive.text(of: seconds)
    }
}
