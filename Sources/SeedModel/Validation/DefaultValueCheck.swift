import Foundation

/// Checks that a default value as Xcode writes it can be read as its attribute's type.
enum DefaultValueCheck {
    /// What is wrong with the value, or nil when it is fine.
    static func problem(_ value: String, for type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64:
            // Xcode writes "0.0" for a default that was a Double before a type change.
            let text = value.trimmingCharacters(in: .whitespaces)
            guard let number = Int64(text) ?? Double(text).flatMap({ Int64(exactly: $0) }) else {
                return "is not a whole number; write digits only"
            }
            if let range = type.integerRange, !range.contains(number) {
                return "is out of range for \(type.rawValue) (\(range.lowerBound)…\(range.upperBound))"
            }
        case .double, .float, .decimal, .date:
            guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else {
                let unit = type == .date ? " (dates are written as seconds since 2001-01-01)" : ""
                return "is not a finite number\(unit)"
            }
        case .boolean:
            guard ["YES", "NO", "true", "false", "1", "0"].contains(value) else {
                return "is not a boolean; write YES or NO"
            }
        case .uuid:
            guard UUID(uuidString: value) != nil else { return "is not a UUID" }
        case .string, .binary, .uri, .transformable:
            break
        }
        return nil
    }
}
