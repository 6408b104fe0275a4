import Foundation
import SeedModel

extension FieldConverter {
    /// Decimal or scientific notation (`-0.5`, `1e-3`, `.5`, `5.`), finite; no spaces, `nan`, `inf` or hex.
    static func real(_ bytes: UnsafeRawBufferPointer, type: AttributeType) -> Result<FieldValue, ConversionFailure> {
        let value: Double
        switch realLiteral(bytes) {
        case .invalid:
            return .failure(
                ConversionFailure("\(quote(bytes)) is not a number; write digits with an optional sign, . and exponent (1.5e-3)"))
        case .exact(let exact):
            value = exact
        case .needsStrtod:
            value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text -> Double in
                _ = text.initialize(from: bytes.lazy.map { CChar(bitPattern: $0) })
                text[bytes.count] = 0
                return strtod(text.baseAddress!, nil)
            }
        }
        guard value.isFinite, type != .float || abs(value) <= Double(Float.greatestFiniteMagnitude) else {
            return .failure(ConversionFailure("\(quote(bytes)) is out of range for \(type.rawValue)"))
        }
        return .success(.real(value))
    }

    /// What one pass over a real's text found.
    enum RealLiteral: Equatable {
        /// Not `[+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)?`.
        case invalid
        /// A literal whose digits make an integer M of at most 2^53 and whose decimal exponent E is
        /// within ±22: M and 10^|E| are both exact doubles, and one IEEE division or multiplication
        /// rounds M × 10^E correctly, the same double as `strtod` (Clinger's fast path), without
        /// copying the field into a C string. Most coordinates and prices take it.
        case exact(Double)
        /// A literal only `strtod` converts correctly.
        case needsStrtod
    }

    /// Checks a real's text and, where Clinger's fast path applies, converts it, in one pass over
    /// the bytes (the build converts tens of millions of them).
    static func realLiteral(_ bytes: UnsafeRawBufferPointer) -> RealLiteral {
        let count = bytes.count
        var index = 0
        var negative = false
        if count > 0 && (bytes[0] == 0x2B || bytes[0] == 0x2D) {
            negative = bytes[0] == 0x2D
            index = 1
        }
        var mantissa: UInt64 = 0
        var exact = true
        var digits = mantissaDigits(bytes, from: &index, into: &mantissa, exact: &exact)
        var fractionDigits = 0
        if index < count && bytes[index] == 0x2E {
            index += 1
            fractionDigits = mantissaDigits(bytes, from: &index, into: &mantissa, exact: &exact)
            digits += fractionDigits
        }
        guard digits > 0 else { return .invalid }
        var exponent = 0
        if index < count {
            guard bytes[index] | 0x20 == 0x65 else { return .invalid }
            index += 1
            var exponentNegative = false
            if index < count && (bytes[index] == 0x2B || bytes[index] == 0x2D) {
                exponentNegative = bytes[index] == 0x2D
                index += 1
            }
            let exponentStart = index
            while index < count {
                let digit = bytes[index] &- 0x30
                guard digit <= 9 else { return .invalid }
                // Capped: anything past ±1000 is strtod's (an infinity or zero) anyway.
                if exponent <= 1_000 { exponent = exponent * 10 + Int(digit) }
                index += 1
            }
            guard index > exponentStart else { return .invalid }
            if exponentNegative { exponent = -exponent }
        }
        let power = exponent - fractionDigits
        guard exact, power >= -22 && power <= 22 else { return .needsStrtod }
        let magnitude = power < 0 ? Double(mantissa) / exactPowersOfTen[-power] : Double(mantissa) * exactPowersOfTen[power]
        return .exact(negative ? -magnitude : magnitude)
    }

    /// Reads the digits from `index` on into `mantissa`, and returns how many there were. Past 2^53
    /// the mantissa is no longer exact (and may wrap): `exact` is cleared, strtod's case from then on.
    @inline(__always)
    private static func mantissaDigits(
        _ bytes: UnsafeRawBufferPointer, from index: inout Int, into mantissa: inout UInt64, exact: inout Bool
    ) -> Int {
        let start = index
        while index < bytes.count {
            let digit = bytes[index] &- 0x30
            guard digit <= 9 else { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            if mantissa > 1 << 53 { exact = false }
            index += 1
        }
        return index - start
    }

    /// 10^0 … 10^22, every one exactly representable as a double.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// `[+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)?`
    static func isDecimalLiteral(_ bytes: UnsafeRawBufferPointer, allowExponent: Bool) -> Bool {
        var index = 0
        let count = bytes.count
        func isDigit(_ i: Int) -> Bool { i < count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        if index < count && (bytes[index] == 0x2B || bytes[index] == 0x2D) { index += 1 }
        var digits = 0
        while isDigit(index) {
            index += 1
            digits += 1
        }
        if index < count && bytes[index] == 0x2E {
            index += 1
            while isDigit(index) {
                index += 1
                digits += 1
            }
        }
        guard digits > 0 else { return false }
        if allowExponent && index < count && (bytes[index] | 0x20) == 0x65 {
            index += 1
            if index < count && (bytes[index] == 0x2B || bytes[index] == 0x2D) { index += 1 }
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
        }
        return index == count
    }

    /// Exact canonical text of a decimal: no `+`, no leading zeros, no trailing fractional zeros (`007.50` → `7.5`, `-0.0` → `0`).
    static func canonicalDecimal(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard isDecimalLiteral(bytes, allowExponent: false) else { return nil }
        var text = Array(bytes)
        var negative = false
        if text.first == 0x2D || text.first == 0x2B {
            negative = text.first == 0x2D
            text.removeFirst()
        }
        var integer = text
        var fraction: [UInt8] = []
        if let dot = text.firstIndex(of: 0x2E) {
            integer = Array(text[..<dot])
            fraction = Array(text[(dot + 1)...])
        }
        while integer.first == 0x30 { integer.removeFirst() }
        while fraction.last == 0x30 { fraction.removeLast() }
        if integer.isEmpty { integer = [0x30] }
        var result = integer
        if !fraction.isEmpty { result += [0x2E] + fraction }
        if negative && result != [0x30] { result.insert(0x2D, at: 0) }
        return String(decoding: result, as: UTF8.self)
    }
}

/// Dates as `yyyy-MM-dd` (midnight UTC) or ISO 8601 `yyyy-MM-ddTHH:mm:ss[.fff][Z|±HH:MM|±HHMM]`
/// (a space may stand for `T`; no offset means UTC), parsed by hand: no formatter per field.
enum DateText {
    static func secondsSince1970(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let count = bytes.count
        func number(_ at: Int, _ width: Int) -> Int? {
            guard at + width <= count else { return nil }
            var value = 0
            for i in at..<(at + width) {
                let digit = Int(bytes[i]) - 48
                guard digit >= 0 && digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard count >= 10, let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
            let day = number(8, 2), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        guard count > 10 else { return seconds }
        guard bytes[10] == 0x54 || bytes[10] == 0x20, let hour = number(11, 2), count >= 16, bytes[13] == 0x3A,
            let minute = number(14, 2), hour <= 23, minute <= 59
        else { return nil }
        var index = 16
        var second = 0.0
        if index < count && bytes[index] == 0x3A {
            guard let whole = number(17, 2), whole <= 59 else { return nil }
            second = Double(whole)
            index = 19
            if index < count && bytes[index] == 0x2E {
                index += 1
                var scale = 0.1
                let fractionStart = index
                while index < count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    second += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > fractionStart else { return nil }
            }
        }
        seconds += Double(hour * 3600 + minute * 60) + second
        guard index < count else { return seconds }
        if bytes[index] == 0x5A { return index + 1 == count ? seconds : nil }
        guard bytes[index] == 0x2B || bytes[index] == 0x2D, let offsetHours = number(index + 1, 2), offsetHours <= 23 else { return nil }
        var next = index + 3
        if next < count && bytes[next] == 0x3A { next += 1 }
        guard let offsetMinutes = number(next, 2), offsetMinutes <= 59, next + 2 == count else { return nil }
        let offset = Double(offsetHours * 3600 + offsetMinutes * 60)
        return bytes[index] == 0x2B ? seconds - offset : seconds + offset
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
