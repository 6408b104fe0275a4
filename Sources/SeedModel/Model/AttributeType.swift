/// The type of a persistent attribute, spelled as Xcode writes it in a model's `contents` file.
///
/// The raw values are Xcode's `attributeType` strings, so a model file and the
/// JSON form use the same names.
/// See [NSAttributeType](https://developer.apple.com/documentation/coredata/nsattributetype).
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binary = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    case transformable = "Transformable"

    /// Whether values of this type are whole numbers.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: true
        default: false
        }
    }

    /// The inclusive range an integer type can hold, or nil for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }
}
