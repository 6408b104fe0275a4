extension ColumnMapping {
    /// The names a destination's columns may start with: the relationship's, and its singular
    /// (`genres` → `genre`, `categories` → `category`), normalized.
    static func relationshipPrefixes(_ relationship: String) -> [String] {
        let name = ColumnMapping.normalize(relationship)
        var prefixes = [name]
        if name.hasSuffix("ies") { prefixes.append(String(name.dropLast(3)) + "y") }
        if name.hasSuffix("es") { prefixes.append(String(name.dropLast(2))) }
        if name.hasSuffix("s") { prefixes.append(String(name.dropLast())) }
        return prefixes
    }
}
