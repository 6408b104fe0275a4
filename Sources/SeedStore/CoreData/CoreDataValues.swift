import Foundation
import SeedModel

/// Values as Core Data stores them (`docs/store-format.md`, "Core Data's layout"), to and from the runtime's
/// ``StoreValue`` forms (those of the plain layout, `docs/store-format.md`).
///
/// | type | runtime | Core Data column |
/// |---|---|---|
/// | Date | REAL seconds since 1970 | REAL seconds since 2001-01-01 00:00:00 UTC |
/// | UUID | lowercase TEXT | 16 raw bytes |
/// | Decimal | canonical TEXT | a number (the `DECIMAL` column keeps it as REAL) |
/// | Binary, external storage allowed | the bytes | `01` then the bytes inline, or `02` then the name of a file in `_EXTERNAL_DATA` |
///
/// Everything else is stored as it is.
package enum CoreDataValues {
    /// Seconds from 1970-01-01 to Core Data's reference date, 2001-01-01 (UTC).
    package static let referenceDateOffset: Double = 978_307_200

    /// The Core Data column value for a runtime value of an attribute.
    package static func encode(_ value: StoreValue, for attribute: Attribute) -> StoreValue {
        switch (attribute.type, value) {
        case (.date, .real(let seconds)): .real(seconds - referenceDateOffset)
        case (.date, .integer(let seconds)): .real(Double(seconds) - referenceDateOffset)
        case (.uuid, .text(let text)): UUID(uuidString: text).map { uuid in .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) }) } ?? value
        case (.decimal, .text(let text)): Double(text).map(StoreValue.real) ?? value
        case (.binary, .blob(let bytes)) where attribute.allowsExternalBinaryDataStorage: .blob(Data([0x01]) + bytes)
        default: value
        }
    }

    /// The runtime value for a Core Data column value of an attribute.
    /// - Parameter externalData: the store's `_EXTERNAL_DATA` folder, for bytes kept outside the file.
    /// - Throws: `StoreError` when bytes kept outside the store cannot be read.
    package static func decode(_ value: StoreValue, for attribute: Attribute, externalData: URL? = nil) throws(StoreError) -> StoreValue {
        switch (attribute.type, value) {
        case (.date, .real(let seconds)): return .real(seconds + referenceDateOffset)
        case (.date, .integer(let seconds)): return .real(Double(seconds) + referenceDateOffset)
        case (.uuid, .blob(let bytes)) where bytes.count == 16:
            let uuid = bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
            return .text(UUID(uuid: uuid).uuidString.lowercased())
        case (.decimal, .real(let number)): return .text(canonicalDecimal(number))
        case (.decimal, .integer(let number)): return .text(String(number))
        case (.binary, .blob(let bytes)) where attribute.allowsExternalBinaryDataStorage && !bytes.isEmpty:
            switch bytes.first {
            case 0x01: return .blob(bytes.dropFirst())
            case 0x02:
                let name = String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                guard let file = externalData?.appendingPathComponent(name), let contents = FileManager.default.contents(atPath: file.path)
                else {
                    throw StoreError(
                        .notASeedStore, path: externalData?.path ?? "_EXTERNAL_DATA",
                        "\(attribute.name)'s bytes are kept in an external file \(name) that cannot be read; copy the store's _EXTERNAL_DATA folder beside it"
                    )
                }
                return .blob(contents)
            default: return value
            }
        default:
            return value
        }
    }

    /// A decimal's shortest text, without a trailing `.0`.
    private static func canonicalDecimal(_ number: Double) -> String {
        if let whole = Int64(exactly: number) { return String(whole) }
        return "\(number)"
    }
}
