import Foundation
import SeedInstall

extension StoreConnection.Row {
    /// How this row's values in `columns` sort against `other`'s, column by column, as SQLite's
    /// `ORDER BY` sorts them with the BINARY collation: NULL first, then numbers by value, text by
    /// bytes, blobs by bytes. Negative when this row sorts first, 0 when they are equal.
    ///
    /// Each column's type is read once and its bytes compared in place: a diff reads two stores side
    /// by side, millions of rows. (In the build's module, not SeedInstall, which holds only what a
    /// device runs: the column reads cost a call each across the module boundary.)
    package func compare(_ columns: [Int], with other: Self) -> Int {
        for column in columns {
            let order = compare(column, with: other)
            if order != 0 { return order }
        }
        return 0
    }

    /// The columns among `columns` whose value differs from `other`'s: another type, or other bits or bytes.
    package func differing(_ columns: [Int], from other: Self) -> [Int] {
        columns.filter { !same($0, as: other) }
    }

    private func compare(_ column: Int, with other: Self) -> Int {
        let (typeA, typeB) = (type(column), other.type(column))
        let (rankA, rankB) = (Self.rank(typeA), Self.rank(typeB))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch rankA {
        case 0:
            return 0
        case 1:
            if typeA == .integer, typeB == .integer {
                let (x, y) = (integer(column), other.integer(column))
                return x == y ? 0 : x < y ? -1 : 1
            }
            let (x, y) = (real(column), other.real(column))
            return x == y ? 0 : x < y ? -1 : 1
        default:
            return withBytes(column, isText: rankA == 2) { x in
                other.withBytes(column, isText: rankA == 2) { y in
                    let common = min(x.count, y.count)
                    if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                        let order = memcmp(p, q, common)
                        if order != 0 { return order < 0 ? -1 : 1 }
                    }
                    return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
                }
            }
        }
    }

    private func same(_ column: Int, as other: Self) -> Bool {
        let kind = type(column)
        guard kind == other.type(column) else { return false }
        switch kind {
        case .null: return true
        case .integer: return integer(column) == other.integer(column)
        case .real: return real(column).bitPattern == other.real(column).bitPattern
        case .text, .blob:
            return withBytes(column, isText: kind == .text) { x in
                other.withBytes(column, isText: kind == .text) { y in
                    guard x.count == y.count else { return false }
                    guard x.count > 0, let p = x.baseAddress, let q = y.baseAddress else { return true }
                    return memcmp(p, q, x.count) == 0
                }
            }
        }
    }

    /// SQLite's order of storage classes: NULL, numbers, text, blobs.
    private static func rank(_ type: StoreConnection.ColumnType) -> Int {
        switch type {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }
}
