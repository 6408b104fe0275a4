/// Checks a model version's `contents` bytes before FoundationXML's `XMLParser` sees them.
///
/// On Linux, `XMLParser` crashes the process on some malformed input instead of reporting an error
/// (`<model><e\xff/></model>` traps, `<model><?foo?></model>` segfaults). This check accepts the
/// subset of XML that Xcode writes for a data model — UTF-8 text, an optional `<?xml …?>`
/// declaration first, elements with quoted attributes, character data, comments, CDATA and the
/// predefined and numeric entity references — and refuses everything else (other processing
/// instructions, DOCTYPE and entity declarations, control characters, mismatched tags, text outside
/// the root) with the line it found it on, so the parser only ever sees well-formed input.
enum ModelXMLCheck {
    /// - Returns: nil when the bytes may be parsed, else what is wrong and where.
    static func problem(in data: [UInt8]) -> String? {
        if let offset = firstInvalidUTF8(data) { return "line \(line(at: offset, in: data)): the file is not valid UTF-8" }
        var scanner = Scanner(bytes: data)
        do {
            try scanner.document()
            return nil
        } catch {
            return "line \(line(at: error.offset, in: data)): not well-formed XML: \(error.reason)"
        }
    }

    struct Failure: Error {
        let offset: Int
        let reason: String
    }

    private static func line(at offset: Int, in data: [UInt8]) -> Int {
        data.prefix(offset).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// The offset of the first byte that does not belong to a well-formed UTF-8 sequence.
    static func firstInvalidUTF8(_ data: [UInt8]) -> Int? {
        var index = 0
        while index < data.count {
            let byte = data[index]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= data.count else { return index }
            for k in 1..<length where data[index + k] & 0xC0 != 0x80 { return index }
            if length == 3, byte == 0xE0, data[index + 1] < 0xA0 { return index } // overlong
            if length == 3, byte == 0xED, data[index + 1] >= 0xA0 { return index } // surrogate
            if length == 4, byte == 0xF0, data[index + 1] < 0x90 { return index } // overlong
            if length == 4, byte == 0xF4, data[index + 1] >= 0x90 { return index } // above U+10FFFF
            index += length
        }
        return nil
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

        func starts(with text: String) -> Bool { bytes[index...].starts(with: Array(text.utf8)) }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func skip(past end: String, what: String) throws(Failure) {
            let pattern = Array(end.utf8)
            while index < bytes.count {
                if bytes[index...].starts(with: pattern) {
                    index += pattern.count
                    return
                }
                try character()
            }
            throw fail("\(what) never ends")
        }

        /// One byte of text: control characters other than tab and line ends are not XML.
        mutating func character() throws(Failure) {
            if bytes[index] < 0x20, ![0x09, 0x0A, 0x0D].contains(bytes[index]) { throw fail("control character \(bytes[index])") }
            index += 1
        }

        mutating func document() throws(Failure) {
            if starts(with: "<?xml"), index + 5 < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index + 5]) {
                try skip(past: "?>", what: "the XML declaration")
            }
            var sawRoot = false
            while true {
                skipSpace()
                guard index < bytes.count else { break }
                if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if starts(with: "<?") {
                    throw fail("a processing instruction; a data model has none")
                } else if starts(with: "<!") {
                    throw fail("a DOCTYPE or declaration; a data model has none")
                } else if bytes[index] == UInt8(ascii: "<"), !sawRoot {
                    try element()
                    sawRoot = true
                } else {
                    throw fail(sawRoot ? "content after the root element" : "text before the root element")
                }
            }
            if !sawRoot { throw fail("no root element") }
        }

        mutating func name() throws(Failure) -> ArraySlice<UInt8> {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                let isStart = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                let isPart = isStart || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                guard index == start ? isStart : isPart else { break }
                index += 1
            }
            guard index > start else { throw fail("a name was expected") }
            return bytes[start..<index]
        }

        /// An element from its `<` through its end tag, nested elements iteratively.
        mutating func element() throws(Failure) {
            var open: [ArraySlice<UInt8>] = []
            repeat {
                guard index < bytes.count else { throw fail("the document ends inside an element") }
                if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if starts(with: "<![CDATA[") {
                    try skip(past: "]]>", what: "a CDATA section")
                } else if starts(with: "<?") || starts(with: "<!") {
                    throw fail("a processing instruction or declaration; a data model has none")
                } else if starts(with: "</") {
                    index += 2
                    let closing = try name()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw fail("'>' expected") }
                    index += 1
                    guard let expected = open.popLast(), expected.elementsEqual(closing) else {
                        throw fail("an end tag that matches no open element")
                    }
                } else if bytes[index] == UInt8(ascii: "<") {
                    index += 1
                    let tag = try name()
                    if try attributes() { open.append(tag) }
                } else if bytes[index] == UInt8(ascii: "&") {
                    try reference()
                } else if bytes[index] == UInt8(ascii: ">") && starts(with: "]]>") {
                    throw fail("']]>' in text")
                } else {
                    try character()
                }
            } while !open.isEmpty
        }

        /// Attributes up to `>` (returns true: the element stays open) or `/>` (false).
        mutating func attributes() throws(Failure) -> Bool {
            var seen: [ArraySlice<UInt8>] = []
            while true {
                let before = index
                skipSpace()
                guard index < bytes.count else { throw fail("the document ends inside a tag") }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    return true
                }
                if starts(with: "/>") {
                    index += 2
                    return false
                }
                guard index > before else { throw fail("white space expected before an attribute") }
                let attribute = try name()
                if seen.contains(where: { $0.elementsEqual(attribute) }) { throw fail("an attribute given twice") }
                seen.append(attribute)
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw fail("'=' expected after an attribute name") }
                index += 1
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                    throw fail("a quoted attribute value expected")
                }
                let quote = bytes[index]
                index += 1
                while true {
                    guard index < bytes.count else { throw fail("an attribute value never ends") }
                    if bytes[index] == quote {
                        index += 1
                        break
                    }
                    if bytes[index] == UInt8(ascii: "<") { throw fail("'<' in an attribute value") }
                    if bytes[index] == UInt8(ascii: "&") { try reference() } else { try character() }
                }
            }
        }

        /// `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#NN;` `&#xHH;` for a character XML allows.
        mutating func reference() throws(Failure) {
            guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw fail("'&' that starts no reference") }
            let body = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            let allowed: Bool
            if ["lt", "gt", "amp", "quot", "apos"].contains(body) {
                allowed = true
            } else if body.hasPrefix("#x"), let value = UInt32(body.dropFirst(2), radix: 16) {
                allowed = Self.isXMLCharacter(value)
            } else if body.hasPrefix("#"), let value = UInt32(body.dropFirst(), radix: 10) {
                allowed = Self.isXMLCharacter(value)
            } else {
                allowed = false
            }
            guard allowed else { throw fail("unknown or invalid reference &\(body);") }
            index = end + 1
        }

        static func isXMLCharacter(_ value: UInt32) -> Bool {
            value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
        }
    }
}
