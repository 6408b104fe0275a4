/// An NSKeyedArchiver archive read as a graph: `$objects`, where every object is a dictionary
/// of fields whose values refer to other objects by UID, and `$top`'s `root`.
///
/// Objects are not mapped to classes (there is no Core Data here); readers ask for fields by the
/// archive's key names and get `nil` for a missing field or `$null`.
struct KeyedArchive: Sendable {
    private let objects: [PropertyListValue]
    /// The archive's root object (`$top.root`).
    let root: ArchivedObject

    init(_ plist: PropertyListValue) throws(PropertyListFault) {
        guard case .dictionary(let archive) = plist, case .array(let objects)? = archive["$objects"],
            case .dictionary(let top)? = archive["$top"]
        else {
            throw PropertyListFault(reason: "it is a property list but not an NSKeyedArchiver archive (no $objects and $top)")
        }
        self.objects = objects
        guard let value = top["root"], let root = Self.object(value, in: objects) else {
            throw PropertyListFault(reason: "the archive's $top has no root object")
        }
        self.root = root
    }

    /// The value a UID refers to (anything else as it is); `$null` is ``PropertyListValue/null``.
    func resolve(_ value: PropertyListValue) -> PropertyListValue {
        Self.resolve(value, in: objects)
    }

    private static func resolve(_ value: PropertyListValue, in objects: [PropertyListValue]) -> PropertyListValue {
        guard case .uid(let index) = value else { return value }
        guard index > 0, index < objects.count else { return .null }
        if case .string("$null") = objects[index] { return .null }
        return objects[index]
    }

    func object(_ value: PropertyListValue?) -> ArchivedObject? {
        value.flatMap { Self.object($0, in: objects) }
    }

    private static func object(_ value: PropertyListValue, in objects: [PropertyListValue]) -> ArchivedObject? {
        guard case .dictionary(let fields) = resolve(value, in: objects), fields["$class"] != nil else { return nil }
        var classes: [String] = []
        if case .dictionary(let info) = resolve(fields["$class"]!, in: objects), case .array(let names)? = info["$classes"] {
            classes = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
        return ArchivedObject(fields: fields, classes: classes)
    }

    /// A string stored inline or as an `NSString`/`NSMutableString` object.
    func string(_ value: PropertyListValue?) -> String? {
        guard let value else { return nil }
        if case .string(let text) = resolve(value) { return text }
        // One level only: an archive whose string object refers to itself must not recurse.
        guard case .string(let text)? = object(value)?["NS.string"].map(resolve) else { return nil }
        return text
    }

    /// The members of an array, set or dictionary (its values), or of Core Data's
    /// `NSKnownKeysDictionary1` (whose empty slots are left out).
    func elements(_ value: PropertyListValue?) -> [PropertyListValue] {
        entries(value).map(\.value)
    }

    /// The entries of a dictionary (arrays and sets give their members with no key), in archive order.
    func entries(_ value: PropertyListValue?) -> [(key: String?, value: PropertyListValue)] {
        guard let value else { return [] }
        if case .array(let items) = resolve(value) { return items.map { (nil, $0) } }
        guard let container = object(value) else { return [] }
        if case .array(let values)? = container["NS.objects"].map(resolve) {
            guard case .array(let keys)? = container["NS.keys"].map(resolve) else { return values.map { (nil, $0) } }
            return zip(keys, values).map { (string($0), $1) }
        }
        // NSKnownKeysDictionary1: the keys in its search mapping, the values beside them; each an
        // array read one level deep, so an archive that loops cannot recurse.
        let empty = string(container["emptyToken"])
        let keys = object(container["searchMapping"]).map { members($0["keys"]) } ?? []
        let values = members(container["values"])
        return values.enumerated().compactMap { offset, item in
            if let empty, string(item) == empty { return nil }
            return (offset < keys.count ? string(keys[offset]) : nil, item)
        }
    }
}

extension KeyedArchive {
    /// The members of an `NSArray` object or an inline array, without looking further.
    fileprivate func members(_ value: PropertyListValue?) -> [PropertyListValue] {
        guard let value else { return [] }
        if case .array(let items) = resolve(value) { return items }
        guard case .array(let items)? = object(value)?["NS.objects"].map(resolve) else { return [] }
        return items
    }
}

/// One archived object: its fields and its class chain (`$classes`, most derived first).
struct ArchivedObject: Sendable {
    let fields: [String: PropertyListValue]
    let classes: [String]

    var className: String { classes.first ?? "an object of no class" }

    /// Whether the object's class is `name` or a subclass of it.
    func isKind(of name: String) -> Bool { classes.contains(name) }

    subscript(_ key: String) -> PropertyListValue? { fields[key] }
}

extension KeyedArchive {
    /// An integer field (booleans read as 0 and 1), or nil when absent or not a number.
    func integer(_ value: PropertyListValue?) -> Int64? {
        guard let value else { return nil }
        switch resolve(value) {
        case .integer(let number): return number
        case .bool(let flag): return flag ? 1 : 0
        case .real(let number): return Int64(exactly: number)
        default: return nil
        }
    }

    /// A floating-point value written as NSNumber and Xcode write it: `0` for 0.0, `0.5` as is.
    static func text(of number: Double) -> String {
        guard number == number.rounded(), abs(number) < 1e15 else { return String(number) }
        return String(Int64(number))
    }

    /// A Boolean field; absent or `$null` is false.
    func flag(_ value: PropertyListValue?) -> Bool {
        (integer(value) ?? 0) != 0
    }
}
