import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

@Suite("Strict streaming CSV reader")
struct CSVReaderTests {
    private let directory = TemporaryDirectory()

    private func records(_ text: String, bufferSize: Int = 1 << 20) throws -> [[String]] {
        try records(bytes: Array(text.utf8), bufferSize: bufferSize).map(\.fields)
    }

    private func records(bytes: [UInt8], bufferSize: Int = 1 << 20) throws -> [(line: Int, fields: [String], raw: String)] {
        let path = directory.path("t-\(UUID().uuidString).csv")
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let reader = try CSVReader(path: path, bufferSize: bufferSize)
        var out: [(Int, [String], String)] = [(1, reader.header, "")]
        while let record = try reader.next() {
            out.append((record.line, (0..<record.count).map { record.string($0) }, String(decoding: record.rawBytes, as: UTF8.self)))
        }
        return out
    }

    private func error(_ text: String, bufferSize: Int = 1 << 20) -> CSVError? {
        error(bytes: Array(text.utf8), bufferSize: bufferSize)
    }

    private func error(bytes: [UInt8], bufferSize: Int = 1 << 20) -> CSVError? {
        do {
            _ = try records(bytes: bytes, bufferSize: bufferSize)
            return nil
        } catch let error as CSVError {
            return error
        } catch {
            return nil
        }
    }

    @Test func quotedFieldsCommasDoubledQuotesAndLineBreaks() throws {
        let parsed = try records(bytes: Array("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\nplain,,last\n".utf8))
        #expect(parsed[1].fields == ["x, y", "say \"hi\"", "two\nlines"])
        #expect(parsed[1].line == 2)
        #expect(parsed[2].fields == ["plain", "", "last"])
        #expect(parsed[2].line == 4, "the line count goes on inside quoted line breaks")
        #expect(parsed[1].raw == "\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"")
    }

    @Test func crlfBomAndMissingFinalNewline() throws {
        #expect(
            try records("\u{FEFF}id,name\r\n1,a\r\n2,\"b\r\nc\"\r\n3,d") == [["id", "name"], ["1", "a"], ["2", "b\r\nc"], ["3", "d"]])
        #expect(try records("a\n1\n\n") == [["a"], ["1"]], "one blank final line is ignored")
        #expect(try records("a,b\n1,\n") == [["a", "b"], ["1", ""]])
        #expect(try records("a,b\n1,") == [["a", "b"], ["1", ""]])
        #expect(try records("a\n\"\"\n") == [["a"], [""]])
    }

    @Test func recordsCrossingAndExceedingTheBuffer() throws {
        var generator = SystemRandomNumberGenerator()
        var text = "k,v,w\n"
        var expected: [[String]] = [["k", "v", "w"]]
        let alphabet = Array("ab,\"\n é€😀xyz")
        for index in 0..<300 {
            let value = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let long = String(repeating: "z", count: index % 50 == 0 ? 100 : 3)
            text += "\(index),\"\(value.replacingOccurrences(of: "\"", with: "\"\""))\",\(long)\n"
            expected.append(["\(index)", value, long])
        }
        for size in [7, 16, 64, 1000] {
            #expect(try records(text, bufferSize: size) == expected, "buffer size \(size)")
        }
    }

    @Test func unterminatedQuoteIsReportedWhereItOpened() {
        let found = error("a,b\n1,2\n3,\"open\n4,5\n6,7\n")
        #expect(found?.kind == .unterminatedQuote)
        #expect(found?.line == 3 && found?.column == 2 && found?.field == "b")
        #expect(
            found?.description.hasSuffix(
                ".csv:3:2 (field \"b\"): a quoted field starts here and never ends; close the quote (a quote inside a quoted field is written \"\")"
            ) == true)
        #expect(found?.isRecoverable == false)
    }

    @Test func textAfterClosingQuoteAndStrayQuotes() {
        let after = error("a,b\n\"x\"y,2\n")
        #expect(after?.kind == .textAfterClosingQuote && after?.line == 2 && after?.column == 1 && after?.field == "a")
        let stray = error("a,b\n1,x\"y\n")
        #expect(stray?.kind == .quoteInUnquotedField && stray?.column == 2)
        let bareCR = error("a,b\n1,2\r3,4\n")
        #expect(bareCR?.kind == .bareCarriageReturn && bareCR?.line == 2)
    }

    @Test func raggedRecordsAreRecoverable() throws {
        let path = directory.write("ragged.csv", "a,b\n1,2,3\n4\n5,6\n")
        let reader = try CSVReader(path: path)
        #expect(throws: CSVError(path: path, line: 2, column: 3, kind: .tooManyFields(expected: 2, found: 3))) { try reader.next() }
        #expect(reader.lastRecordBytes == Array("1,2,3".utf8))
        #expect(throws: CSVError(path: path, line: 3, column: 2, field: "b", kind: .tooFewFields(expected: 2, found: 1))) {
            try reader.next()
        }
        let record = try #require(try reader.next())
        #expect(record.line == 4 && record.string(1) == "6")
        #expect(try reader.next() == nil)
    }

    @Test func invalidUTF8AndNulBytesNameLineAndField() throws {
        let utf8 = error(bytes: Array("a,b\n1,ok\n2,".utf8) + [0xC3, 0x28] + Array("\n".utf8))
        #expect(utf8?.kind == .invalidUTF8 && utf8?.line == 3 && utf8?.column == 2 && utf8?.field == "b")
        let overlong = error(bytes: Array("a\n".utf8) + [0xE0, 0x80, 0x80] + Array("\n".utf8))
        #expect(overlong?.kind == .invalidUTF8)
        let surrogate = error(bytes: Array("a\n".utf8) + [0xED, 0xA0, 0x80] + Array("\n".utf8))
        #expect(surrogate?.kind == .invalidUTF8)
        let nul = error(bytes: Array("a,b\n1,x".utf8) + [0] + Array("y\n".utf8))
        #expect(nul?.kind == .nulByte && nul?.line == 2 && nul?.column == 2)
        #expect(nul?.isRecoverable == true)
        #expect(try records(bytes: Array("a\n".utf8) + [0xF0, 0x9F, 0x98, 0x80] + Array("\n".utf8)).last?.fields == ["😀"])
    }

    @Test func emptyHeaderOnlyAndBadHeaders() {
        #expect(error("")?.kind == .emptyFile)
        #expect(error("\u{FEFF}")?.kind == .emptyFile)
        #expect(error("a,b\n")?.kind == .headerOnly)
        #expect(error("a,b")?.kind == .headerOnly)
        let empty = error("a,,c\n1,2,3\n")
        #expect(empty?.kind == .emptyHeaderName && empty?.column == 2)
        let duplicate = error("a,b,a\n1,2,3\n")
        #expect(duplicate?.kind == .duplicateHeaderName("a") && duplicate?.column == 3)
        let missing = directory.path("nope.csv")
        #expect(throws: CSVError.self) { try CSVReader(path: missing) }
    }

    @Test func blankLineInTheMiddleIsARaggedRecord() {
        let found = error("a,b\n1,2\n\n3,4\n")
        #expect(found?.kind == .tooFewFields(expected: 2, found: 1) && found?.line == 3)
    }
}
