import SeedModel
import SeedStore

extension EntityLoader {
    /// The columns the `INSERT` names, in feed order (``ColumnMapping/feeds``).
    var insertColumns: [String] {
        (numbering != nil ? [table.keyColumn] : []) + valueColumns.map(\.name)
    }

    /// The table's columns but a rowid primary key: one per feed.
    private var valueColumns: [EntityTable.Column] {
        table.columns.filter { column in
            if case .primaryKey = column.kind { return false }
            return true
        }
    }

    /// The `VALUES` tuple of one row: a literal for a column with one value for every row
    /// (``literals``), a placeholder for each other, converted into Core Data's stored form where
    /// the producer has not converted it already (``storesCoreDataDate``).
    var placeholders: String {
        let literals = self.literals
        let dates = storesCoreDataDate
        let values = valueColumns.enumerated().map { index, column in
            literals[index] ?? (dates[index] ? "?" : table.boundExpression(for: column))
        }
        return ((numbering != nil ? ["?"] : []) + values).joined(separator: ", ")
    }

    /// Per feed, the SQL literal of a column no field feeds whose value is NULL or a whole number
    /// (Core Data's `Z_ENT` and `Z_OPT`, an absent optional attribute), written into the `INSERT`
    /// so no row binds it; nil for a bound column. Binding two such columns of 13 and copying them
    /// through the VDBE measured 9% of SQLite's insert time in Core Data's layout.
    var literals: [String?] {
        let defaults = feedDefaults()
        return mapping.feeds.enumerated().map { index, feed in
            switch feed {
            case .absent:
                guard let value = defaults[index] else { return "NULL" }
                if case .integer(let number) = value { return String(number) }
                return nil
            case .absentReference:
                return "NULL"
            case .attribute, .reference:
                return nil
            }
        }
    }

    /// The feeds bound to each row's parameters, in parameter order.
    var boundFeeds: [Int] {
        literals.enumerated().compactMap { $0.element == nil ? $0.offset : nil }
    }

    /// Per feed, whether it is a date of Core Data's layout, which keeps seconds since 2001: the
    /// producer converts it (``coreDataDate(_:)``) rather than the `INSERT` (`? - 978307200`).
    var storesCoreDataDate: [Bool] {
        valueColumns.map { column in
            guard table.layout == .coreData, case .attribute(let attribute) = column.kind else { return false }
            return attribute.type == .date
        }
    }

    /// A date given as seconds since 1970, as Core Data's TIMESTAMP column keeps it: seconds since
    /// 2001, and a whole number as an INTEGER (NUMERIC affinity), exactly what `(? - 978307200)`
    /// stores for the bound REAL.
    static func coreDataDate(_ seconds: Double) -> RowBatch.Slot {
        let value = seconds - CoreDataValues.referenceDateOffset
        if let whole = Int64(exactly: value), whole > Int64.min, whole < Int64.max { return .integer(whole) }
        return .real(value)
    }

    /// Per insert column, how its table keeps a bound value; nil when the digest cannot be hashed
    /// while the rows go in (a Decimal's text, which NUMERIC affinity turns into a number, or columns
    /// Core Data's layout fills after the load), and is read back instead.
    var storedForms: [RowBatch.StoredForm]? {
        var forms: [RowBatch.StoredForm] = []
        for column in valueColumns {
            switch column.kind {
            case .toOneEntity, .toOneOrder: return nil
            case .attribute(let attribute) where table.layout == .coreData:
                switch attribute.type {
                case .uuid: forms.append(.uuidBytes)
                case .decimal: return nil
                case .binary where attribute.allowsExternalBinaryDataStorage: forms.append(.inlineMarker)
                default: forms.append(.asBound)
                }
            default: forms.append(.asBound)
            }
        }
        return forms
    }
}
