/// What happens to a relationship's destination when its source object is deleted.
///
/// Raw values are Xcode's `deletionRule` strings.
/// See [NSDeleteRule](https://developer.apple.com/documentation/coredata/nsdeleterule).
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    case nullify = "Nullify"
    case cascade = "Cascade"
    case deny = "Deny"
    case noAction = "No Action"
}
