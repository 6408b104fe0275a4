import Foundation

/// A value converted from text, ready to bind to an SQLite statement.
package enum FieldValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    /// Bind the field's own bytes as TEXT, unchanged.
    case fieldText
    /// Bind this normalized text instead (a lowercase UUID, a canonical decimal).
    case text(String)
    /// Binary and Transformable values, base64-decoded.
    case blob([UInt8])

    /// The value as an SQL literal for a `DEFAULT` clause.
    package func sqlLiteral(fieldText: String) -> String {
        StoreValue(self, fieldText: fieldText).sqlLiteral
    }

    /// A real as SQLite prints it with `CAST(x AS TEXT)`: 15 significant digits, `.0` for whole numbers.
    static func sqliteText(_ value: Double) -> String {
        var text = String(format: "%.15g", value)
        if !text.contains(".") && !text.contains("e") && !text.contains("n") && !text.contains("i") { text += ".0" }
        return text
    }

}
