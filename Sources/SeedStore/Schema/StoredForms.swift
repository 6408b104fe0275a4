import SeedModel

/// The attribute values a table keeps as Core Data stores them (``CoreDataValues``) rather than in
/// the runtime's forms (`docs/store-format.md`): all of them in Core Data's layout, none in a plain
/// store built by seedbuild, and in a plain store converted from Core Data's layout those whose
/// conversion would change the value — dates (seconds since 2001 do not survive a trip through
/// 1970 to the last bit) and Binary with external storage (a reference to a file is no bytes).
package struct StoredForms: OptionSet, Sendable, Hashable {
    package let rawValue: Int

    package init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Dates as seconds since 2001-01-01 UTC.
    package static let dates = StoredForms(rawValue: 1)
    /// UUIDs as 16 bytes.
    package static let uuids = StoredForms(rawValue: 2)
    /// Decimals as numbers.
    package static let decimals = StoredForms(rawValue: 4)
    /// Binary with external storage allowed as `01` + the bytes, or `02` + the name of an external file.
    package static let externalBinary = StoredForms(rawValue: 8)

    /// Core Data's layout.
    package static let coreData: StoredForms = [.dates, .uuids, .decimals, .externalBinary]
    /// A plain store converted from Core Data's layout: the forms that would not survive conversion.
    package static let converted: StoredForms = [.dates, .externalBinary]

    /// Whether the attribute's values are kept in Core Data's form.
    package func covers(_ attribute: Attribute) -> Bool {
        switch attribute.type {
        case .date: contains(.dates)
        case .uuid: contains(.uuids)
        case .decimal: contains(.decimals)
        case .binary: attribute.allowsExternalBinaryDataStorage && contains(.externalBinary)
        default: false
        }
    }
}
