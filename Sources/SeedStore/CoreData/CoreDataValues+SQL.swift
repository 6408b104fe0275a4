import Foundation
package import GRDB
import SeedModel

extension CoreDataValues {
    /// `seed_uuid_blob(text)`: a UUID's text as Core Data's 16 raw bytes (other values pass unchanged).
    package static let uuidFunction = "seed_uuid_blob"
    /// `seed_inline_blob(bytes)`: bytes as Core Data keeps Binary with external storage allowed inline (`01` first).
    package static let inlineFunction = "seed_inline_blob"

    /// `seed_uuid_text(bytes)`: Core Data's 16 bytes of a UUID as the runtime's lowercase text.
    package static let uuidTextFunction = "seed_uuid_text"
    /// `seed_decimal_text(number)`: a Decimal read back from Core Data's column as canonical text.
    package static let decimalTextFunction = "seed_decimal_text"
    /// `seed_inline_bytes(bytes)`: Binary with external storage allowed, without its `01` marker.
    package static let inlineBytesFunction = "seed_inline_bytes"

    /// Registers the functions ``EntityTable/boundExpression(for:)`` writes Core Data's values through.
    package static func registerFunctions(in db: Database) {
        db.add(
            function: DatabaseFunction(uuidFunction, argumentCount: 1, pure: true) { values in
                guard let text = String.fromDatabaseValue(values[0]), let uuid = UUID(uuidString: text) else { return values[0] }
                return withUnsafeBytes(of: uuid.uuid) { Data($0) }
            })
        db.add(
            function: DatabaseFunction(inlineFunction, argumentCount: 1, pure: true) { values in
                guard let bytes = Data.fromDatabaseValue(values[0]) else { return values[0] }
                return Data([0x01]) + bytes
            })
        let decoding: [(String, AttributeType)] = [
            (uuidTextFunction, .uuid), (decimalTextFunction, .decimal), (inlineBytesFunction, .binary),
        ]
        for (name, type) in decoding {
            // Bytes kept in an external file stay as their marker here: the store is read without its folder.
            let attribute = Attribute(name: name, type: type, allowsExternalBinaryDataStorage: type == .binary)
            db.add(
                function: DatabaseFunction(name, argumentCount: 1, pure: true) { values in
                    let value = StoreValue(values[0])
                    return (try? decode(value, for: attribute))?.databaseValue ?? values[0]
                })
        }
    }
}
