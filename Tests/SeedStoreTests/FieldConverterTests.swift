import Foundation
import SeedModel
import SeedStore
import Testing

@Suite("Converting CSV fields to stored values")
struct FieldConverterTests {
    private func convert(_ text: String, _ type: AttributeType) -> Result<FieldValue, ConversionFailure> {
        var text = text
        return text.withUTF8 { FieldConverter.convert(UnsafeRawBufferPointer($0), as: type) }
    }

    private func value(_ text: String, _ type: AttributeType) -> FieldValue? {
        try? convert(text, type).get()
    }

    private func reason(_ text: String, _ type: AttributeType) -> String? {
        if case .failure(let failure) = convert(text, type) { return failure.reason }
        return nil
    }

    /// Decimals are converted without strtod when that gives the same double (Clinger's fast path):
    /// every shape of literal — long mantissas, many fractional digits, leading and trailing zeros,
    /// exponents near and past ±22, signed zeros — must give strtod's bits exactly.
    @Test func realsAreStrtodsDoublesBitForBit() {
        var generator = SystemRandomNumberGenerator()
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) }) }
        var literals = [
            "0", "-0", "-0.0", "+0.000", ".5", "5.", "-.25", "007.50", "9007199254740992", "9007199254740993",
            "900719925474099.3", "1e22", "1e23", "1e-22", "1e-23", "123456789012345678901234567890", "0.1", "0.3",
            "51.507351", "-0.127758", "4.9e-324", "1.7976931348623157e308", "2.2250738585072014e-308",
        ]
        for _ in 0..<20_000 {
            var literal = Bool.random(using: &generator) ? "-" : ""
            literal += digits(Int.random(in: 0...12, using: &generator))
            if Bool.random(using: &generator) || literal.isEmpty || literal == "-" {
                literal += "." + digits(Int.random(in: 1...12, using: &generator))
            }
            if Int.random(in: 0..<4, using: &generator) == 0 {
                literal += (Bool.random(using: &generator) ? "e" : "E") + ["", "+", "-"].randomElement(using: &generator)!
                literal += String(Int.random(in: 0...40, using: &generator))
            }
            literals.append(literal)
        }
        for literal in literals {
            guard case .real(let converted)? = value(literal, .double) else {
                Issue.record("\(literal) did not convert")
                continue
            }
            let expected = strtod(literal, nil)
            #expect(converted.bitPattern == expected.bitPattern, "\(literal): \(converted) against strtod's \(expected)")
        }
    }

    @Test(arguments: [
        ("0", AttributeType.integer16, Int64(0)), ("-32768", .integer16, -32768), ("+32767", .integer16, 32767),
        ("2147483647", .integer32, 2_147_483_647), ("-2147483648", .integer32, -2_147_483_648),
        ("9223372036854775807", .integer64, Int64.max), ("-9223372036854775808", .integer64, Int64.min), ("007", .integer64, 7),
    ])
    func integersInRange(text: String, type: AttributeType, expected: Int64) {
        #expect(value(text, type) == .integer(expected))
    }

    @Test(arguments: [
        ("32768", AttributeType.integer16), ("-32769", .integer16), ("2147483648", .integer32),
        ("9223372036854775808", .integer64), ("-9223372036854775809", .integer64),
    ])
    func integersOutOfRange(text: String, type: AttributeType) {
        #expect(reason(text, type)?.contains("is out of range for \(type.rawValue)") == true)
    }

    @Test(arguments: ["1.0", "1e3", " 1", "1 ", "0x10", "-", "+", "1,000", "١"])
    func notIntegers(text: String) {
        #expect(reason(text, .integer32) == "\"\(text)\" is not a whole number; write digits with an optional sign")
    }

    @Test func reals() {
        #expect(value("-0.5", .double) == .real(-0.5))
        #expect(value("1e-3", .double) == .real(0.001))
        #expect(value(".5", .double) == .real(0.5))
        #expect(value("5.", .double) == .real(5))
        #expect(value("51.123456", .float) == .real(51.123456))
        for bad in ["nan", "inf", "-inf", "1e", "e5", "1.2.3", " 1", "0x1p3", ""] {
            #expect(reason(bad, .double)?.contains("is not a number") == true, "\(bad)")
        }
        #expect(reason("1e999", .double)?.contains("out of range for Double") == true)
        #expect(reason("1e39", .float)?.contains("out of range for Float") == true)
    }

    /// Reals are checked and converted in one pass: every short string of the bytes a literal is
    /// made of converts exactly when it matches the grammar, to strtod's double, and fails as not a
    /// number otherwise (or as out of range, where strtod overflows).
    @Test func realsAreAcceptedExactlyByTheirGrammar() throws {
        let grammar = try NSRegularExpression(pattern: #"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"#)
        let alphabet = Array("0159+-.eE x")
        var generator = SystemRandomNumberGenerator()
        var literals = [
            "1e", "1e+", "+.", ".", "-.e1", "1.e5", "1e5.0", "1..2", "1e--2", "e", "+", "-0e0", "00.00e-00", "1e0001", "9e22", "9e-22",
        ]
        for _ in 0..<30_000 {
            literals.append(String((0..<Int.random(in: 1...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for literal in literals {
            let matches = grammar.firstMatch(in: literal, range: NSRange(literal.startIndex..., in: literal)) != nil
            switch convert(literal, .double) {
            case .success(.real(let converted)):
                #expect(matches, "\(literal) converted to \(converted) but is not a literal")
                #expect(converted.bitPattern == strtod(literal, nil).bitPattern, "\(literal): \(converted) against strtod's")
            case .success(let other):
                Issue.record("\(literal) converted to \(other)")
            case .failure(let failure):
                let overflows = matches && !strtod(literal, nil).isFinite
                #expect(failure.reason.contains(overflows ? "out of range" : "is not a number"), "\(literal): \(failure.reason)")
            }
        }
    }

    @Test func decimalsAreExactAndCanonical() {
        #expect(value("007.50", .decimal) == .text("7.5"))
        #expect(value("-0.0", .decimal) == .text("0"))
        #expect(value("+12", .decimal) == .text("12"))
        #expect(value(".25", .decimal) == .text("0.25"))
        #expect(
            value("123456789012345678901234567890.000000000000000001", .decimal)
                == .text("123456789012345678901234567890.000000000000000001"))
        #expect(reason("1e3", .decimal)?.contains("is not a decimal number") == true)
    }

    @Test func booleans() {
        for yes in ["true", "TRUE", "Yes", "1"] { #expect(value(yes, .boolean) == .integer(1)) }
        for no in ["false", "False", "NO", "0"] { #expect(value(no, .boolean) == .integer(0)) }
        for bad in ["2", "y", "t", "truex", "\u{11}"] {
            #expect(reason(bad, .boolean)?.contains("is not a boolean") == true, "\(bad)")
        }
    }

    @Test func dates() {
        #expect(value("1970-01-01", .date) == .real(0))
        #expect(value("2024-02-29", .date) == .real(1_709_164_800))
        #expect(value("2024-02-29T12:30:15Z", .date) == .real(1_709_209_815))
        #expect(value("2024-02-29 12:30:15", .date) == .real(1_709_209_815))
        #expect(value("2024-02-29T12:30:15.25+01:00", .date) == .real(1_709_206_215.25))
        #expect(value("2024-02-29T12:30-0130", .date) == .real(1_709_209_800 + 5400))
        #expect(value("1969-12-31", .date) == .real(-86_400))
        for bad in [
            "2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "2024-1-1", "2024-01-01T24:00:00", "2024-01-01T10:60",
            "2024-01-01T10:00:00X", "2024-01-01T10:00:00.", "01/02/2024",
        ] {
            #expect(reason(bad, .date)?.contains("is not a date") == true, "\(bad)")
        }
    }

    @Test func uuidsUrisStringsAndBinary() {
        #expect(value("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", .uuid) == .text("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
        #expect(reason("E621E1F8C36C495A93FC0C247A3E6E5F", .uuid)?.contains("is not a UUID") == true)
        #expect(reason("G621E1F8-C36C-495A-93FC-0C247A3E6E5F", .uuid) != nil)
        #expect(value("https://example.com/a?b=c", .uri) == .fieldText)
        #expect(value("urn:isbn:0451450523", .uri) == .fieldText)
        for bad in ["example.com", "://x", "1http://x", "http://a b"] {
            #expect(reason(bad, .uri)?.contains("is not an absolute URI") == true, "\(bad)")
        }
        #expect(value("anything, really", .string) == .fieldText)
        #expect(value("aGVsbG8=", .binary) == .blob(Array("hello".utf8)))
        #expect(value("aGVsbG8=", .transformable) == .blob(Array("hello".utf8)))
        #expect(reason("aGVsbG8", .binary)?.contains("is not base64") == true)
        #expect(reason("a$==", .binary) != nil)
    }

    @Test func longValuesAreCutInMessages() {
        let long = String(repeating: "x", count: 100)
        #expect(
            reason(long, .integer64)
                == "\"\(String(repeating: "x", count: 40))…\" is not a whole number; write digits with an optional sign")
    }

    @Test func xcodeDefaultValues() throws {
        #expect(try FieldConverter.convertDefault("YES", as: .boolean).get() == .integer(1))
        #expect(try FieldConverter.convertDefault("NO", as: .boolean).get() == .integer(0))
        #expect(try FieldConverter.convertDefault("3", as: .integer16).get() == .integer(3))
        #expect(try FieldConverter.convertDefault("0.0", as: .integer64).get() == .integer(0))
        #expect(try FieldConverter.convertDefault("0.5", as: .double).get() == .real(0.5))
        #expect(try FieldConverter.convertDefault("694224000", as: .date).get() == .real(1_672_531_200))
        #expect(try FieldConverter.convertDefault("hello", as: .string).get() == .text("hello"))
        #expect(throws: ConversionFailure.self) { try FieldConverter.convertDefault("x", as: .integer32).get() }
    }

    @Test func defaultLiterals() {
        #expect(FieldValue.integer(3).sqlLiteral(fieldText: "3") == "3")
        #expect(FieldValue.real(2).sqlLiteral(fieldText: "2") == "2.0")
        #expect(FieldValue.text("it's").sqlLiteral(fieldText: "") == "'it''s'")
        #expect(FieldValue.blob([0xAB, 1]).sqlLiteral(fieldText: "") == "X'AB01'")
    }
}
