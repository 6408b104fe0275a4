import Foundation

/// Reads a default value as Xcode writes it the way Core Data reads it for the attribute's type.
///
/// Real models keep defaults left over from a type change: `0.0` on a Boolean, `NO` on an
/// Integer 16. Core Data reads those as NO and 0, so they are taken, in canonical form; only a
/// value Core Data cannot read as the type at all is a problem (warned about and ignored).
enum DefaultValueCheck {
    /// The value in canonical form for the type (`0` for `NO` on an integer, `NO` for `0.0` on a
    /// Boolean), or nil when it cannot be read as the type.
    static func reading(_ value: String, for type: AttributeType) -> String? {
        let text = value.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16, .integer32, .integer64:
            let number = Int64(text) ?? Double(text).flatMap { Int64(exactly: $0) } ?? booleanWord(text).map { $0 ? 1 : 0 }
            guard let number, type.integerRange?.contains(number) ?? true else { return nil }
            return String(number)
        case .double, .float, .decimal:
            if let word = booleanWord(text) { return word ? "1" : "0" }
            guard let number = Double(text), number.isFinite else { return nil }
            return text
        case .date:
            guard let number = Double(text), number.isFinite else { return nil }
            return text
        case .boolean:
            return boolValue(text) ? "YES" : "NO"
        case .uuid:
            return UUID(uuidString: text) == nil ? nil : text
        case .string, .binary, .uri, .transformable, .undefined, .objectID, .composite:
            return value
        }
    }

    /// What is wrong with the value, or nil when Core Data reads it as the type.
    static func problem(_ value: String, for type: AttributeType) -> String? {
        guard reading(value, for: type) == nil else { return nil }
        switch type {
        case .integer16, .integer32, .integer64:
            if let range = type.integerRange, let number = Int64(value.trimmingCharacters(in: .whitespaces)), !range.contains(number) {
                return "is out of range for \(type.rawValue) (\(range.lowerBound)…\(range.upperBound))"
            }
            return "is not a whole number; write digits only"
        case .date:
            return "is not a finite number (dates are written as seconds since 2001-01-01)"
        case .uuid:
            return "is not a UUID"
        default:
            return "is not a finite number"
        }
    }

    private static func booleanWord(_ text: String) -> Bool? {
        switch text {
        case "YES", "true": true
        case "NO", "false": false
        default: nil
        }
    }

    /// `NSString.boolValue`: after white space, a sign and zeros, Y, y, T, t or a digit 1–9 is YES.
    private static func boolValue(_ text: String) -> Bool {
        var rest = Substring(text)
        if let first = rest.first, first == "+" || first == "-" { rest = rest.dropFirst() }
        rest = rest.drop { $0 == "0" }
        guard let first = rest.first else { return false }
        return "YyTt123456789".contains(first)
    }
}

extension Attribute {
    /// The default value as Core Data reads it, in canonical form; nil when there is none or it
    /// cannot be read as the attribute's type (the model's validation warns about that).
    public var effectiveDefaultValue: String? {
        defaultValue.flatMap { DefaultValueCheck.reading($0, for: type) }
    }
}
