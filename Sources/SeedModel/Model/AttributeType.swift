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
    /// Xcode's "Undefined": legal for transient attributes only, which are never stored.
    case undefined = "Undefined"
    /// An object ID attribute (Core Data's `NSObjectIDAttributeType`).
    case objectID = "ObjectID"
    /// A composite attribute: named sub-attributes stored together (Core Data 2023 and later).
    case composite = "Composite"

    /// Core Data's `NSAttributeType` number, which enters the attribute's version hash.
    public var coreDataCode: UInt32 {
        switch self {
        case .undefined: 0
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        }
    }

    /// The type with this `NSAttributeType` number, as compiled models store it.
    public init?(coreDataCode: UInt32) {
        guard let type = Self.allCases.first(where: { $0.coreDataCode == coreDataCode }) else { return nil }
        self = type
    }

    /// Whether a value of this type can be kept in a store column.
    public var isStorable: Bool {
        switch self {
        case .undefined, .objectID, .composite: false
        default: true
        }
    }

    /// Whether values of this type are whole numbers.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: true
        default: false
        }
    }

    /// The number of bits an integer type holds, for telling widening from narrowing.
    public var integerWidth: Int? {
        switch self {
        case .integer16: 16
        case .integer32: 32
        case .integer64: 64
        default: nil
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
