import Foundation
import SeedModel

/// Why a field could not be converted; names the value and what is expected.
package struct ConversionFailure: Error, Sendable, Equatable {
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }
}

/// Converts a field's text to the value stored for an attribute type.
///
/// Runs for every field of a build (tens of millions), so integers, reals, booleans and dates are
/// parsed from the bytes without making a `String`, and text is bound from the field's own bytes.
/// Stored forms (see `docs/store-format.md`): integers and booleans as INTEGER, Double, Float and
/// Date (seconds since 1970-01-01 UTC) as REAL, Decimal as canonical TEXT, UUID as lowercase TEXT,
/// Binary and Transformable as BLOB.
package enum FieldConverter {
    /// Converts a non-empty field (empty fields mean NULL or the default, decided by the caller).
    package static func convert(_ bytes: UnsafeRawBufferPointer, as type: AttributeType) -> Result<FieldValue, ConversionFailure> {
        switch type {
        case .integer16, .integer32, .integer64:
            return integer(bytes, type: type)
        case .double, .float:
            return real(bytes, type: type)
        case .decimal:
            guard let canonical = canonicalDecimal(bytes) else {
                return .failure(
                    ConversionFailure("\(quote(bytes)) is not a decimal number; write digits with an optional sign and . (no exponent)"))
            }
            return .success(.text(canonical))
        case .string:
            return .success(.fieldText)
        case .boolean:
            return boolean(bytes)
        case .date:
            guard let seconds = DateText.secondsSince1970(bytes) else {
                return .failure(ConversionFailure("\(quote(bytes)) is not a date; write yyyy-MM-dd or ISO 8601 (2024-05-01T12:30:00Z)"))
            }
            return .success(.real(seconds))
        case .uuid:
            return uuid(bytes)
        case .uri:
            return uri(bytes)
        case .binary, .transformable:
            guard let data = Data(base64Encoded: Data(bytes)) else {
                return .failure(
                    ConversionFailure("\(quote(bytes)) is not base64; binary values are written in standard base64 with padding"))
            }
            return .success(.blob([UInt8](data)))
        case .undefined, .objectID, .composite:
            return .failure(ConversionFailure("\(type.rawValue) attributes cannot be given values; they are not stored"))
        }
    }

    /// Converts an Xcode `defaultValueString` (`YES`, `3`, `0.5`; a Date default is seconds since 2001-01-01).
    package static func convertDefault(_ text: String, as type: AttributeType) -> Result<FieldValue, ConversionFailure> {
        var text = text
        switch type {
        case .boolean:
            switch text {
            case "YES": return .success(.integer(1))
            case "NO": return .success(.integer(0))
            default: break
            }
        case .date:
            guard let seconds = Double(text), seconds.isFinite else {
                return .failure(ConversionFailure("date default \"\(text)\" is not a number of seconds since 2001-01-01"))
            }
            return .success(.real(seconds + 978_307_200))
        case .string, .uri:
            return .success(.text(text))
        case .integer16, .integer32, .integer64:
            // "0.0": a default left from when the attribute was a Double.
            if let number = Double(text), let whole = Int64(exactly: number) { text = String(whole) }
        default:
            break
        }
        return text.withUTF8 { convert(UnsafeRawBufferPointer($0), as: type) }
    }

    /// The value in quotes, cut to 40 characters, for messages.
    static func quote(_ bytes: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return "\"" + (text.count > 40 ? text.prefix(40) + "…" : text) + "\""
    }

    private static func integer(_ bytes: UnsafeRawBufferPointer, type: AttributeType) -> Result<FieldValue, ConversionFailure> {
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return .failure(notInteger(bytes)) }
        // Accumulate negatively so Int64.min fits.
        var value: Int64 = 0
        while index < bytes.count {
            let digit = Int64(bytes[index]) - 48
            guard digit >= 0 && digit <= 9 else { return .failure(notInteger(bytes)) }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times.subtractingReportingOverflow(digit)
            guard !overflow1 && !overflow2 else { return .failure(outOfRange(bytes, type)) }
            value = next
            index += 1
        }
        if !negative {
            guard value != Int64.min else { return .failure(outOfRange(bytes, type)) }
            value = -value
        }
        guard type.integerRange!.contains(value) else { return .failure(outOfRange(bytes, type)) }
        return .success(.integer(value))
    }

    private static func notInteger(_ bytes: UnsafeRawBufferPointer) -> ConversionFailure {
        ConversionFailure("\(quote(bytes)) is not a whole number; write digits with an optional sign")
    }

    private static func outOfRange(_ bytes: UnsafeRawBufferPointer, _ type: AttributeType) -> ConversionFailure {
        let range = type.integerRange!
        return ConversionFailure("\(quote(bytes)) is out of range for \(type.rawValue) (\(range.lowerBound)…\(range.upperBound))")
    }

    private static func boolean(_ bytes: UnsafeRawBufferPointer) -> Result<FieldValue, ConversionFailure> {
        if bytes.count <= 5 {
            var lower: UInt64 = 0
            for byte in bytes { lower = lower << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
            switch lower {
            case 0x74_72_75_65, 0x79_65_73, 0x31: return .success(.integer(1)) // true, yes, 1
            case 0x66_61_6C_73_65, 0x6E_6F, 0x30: return .success(.integer(0)) // false, no, 0
            default: break
            }
        }
        return .failure(ConversionFailure("\(quote(bytes)) is not a boolean; write true/false, yes/no or 1/0"))
    }

    private static func uuid(_ bytes: UnsafeRawBufferPointer) -> Result<FieldValue, ConversionFailure> {
        guard bytes.count == 36 else { return .failure(notUUID(bytes)) }
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return .failure(notUUID(bytes)) }
                text.append(byte)
                continue
            }
            let lower = byte | 0x20
            guard
                (lower >= UInt8(ascii: "0") && lower <= UInt8(ascii: "9") && byte == lower)
                    || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f"))
            else {
                return .failure(notUUID(bytes))
            }
            text.append(lower)
        }
        return .success(.text(String(decoding: text, as: UTF8.self)))
    }

    private static func notUUID(_ bytes: UnsafeRawBufferPointer) -> ConversionFailure {
        ConversionFailure("\(quote(bytes)) is not a UUID; write 8-4-4-4-12 hexadecimal digits")
    }

    /// An absolute URI: a scheme (`ALPHA *(ALPHA / DIGIT / + / - / .)`), a colon, and no spaces or control characters.
    private static func uri(_ bytes: UnsafeRawBufferPointer) -> Result<FieldValue, ConversionFailure> {
        var index = 0
        var sawColon = false
        for byte in bytes {
            if byte <= 0x20 || byte == 0x7F {
                sawColon = false
                break
            }
            if !sawColon {
                let isAlpha = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                let isSchemeChar =
                    isAlpha
                    || (index > 0
                        && ((byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")))
                if byte == UInt8(ascii: ":") && index > 0 {
                    sawColon = true
                } else if !isSchemeChar {
                    break
                }
            }
            index += 1
        }
        guard sawColon && index == bytes.count else {
            return .failure(
                ConversionFailure("\(quote(bytes)) is not an absolute URI; write scheme:rest (https://example.com/x) with no spaces"))
        }
        return .success(.fieldText)
    }
}
