extension CSVReader {
    enum ScanResult {
        /// The record ends before `next`, spanning `lines` lines; a content error found on the way, if any.
        case complete(next: Int, lines: Int, encodingError: CSVError?)
        /// The buffer ends inside the record: read more and scan again from the record's start.
        case needMore
    }

    /// Byte classes: 0 plain ASCII, 1 comma, 2 quote, 3 LF, 4 CR, 5 NUL, 6 non-ASCII. A pointer
    /// (allocated once, never freed), so the scan needs no closure around its loop: the locals a
    /// closure captures were checked for exclusive access at run time on every byte (12% of a build's
    /// CPU in `swift_beginAccess`).
    nonisolated(unsafe) static let byteClasses: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0..<256 {
            table[byte] =
                switch byte {
                case 0x2C: 1
                case 0x22: 2
                case 0x0A: 3
                case 0x0D: 4
                case 0x00: 5
                case 0x80...: 6
                default: 0
                }
        }
        return UnsafePointer(table)
    }()

    /// Flags the bytes of `word` (eight bytes, little-endian) that are not plain ASCII — a comma, a
    /// quote, CR, LF, NUL or a byte of 0x80 and up — with their high bit. The lowest flag is always
    /// the first such byte (a borrow can only flag bytes after a real one); zero when there is none.
    @inline(__always)
    static func specialBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        return zeroBytes(word) | zeroBytes(word ^ (ones &* 0x2C)) | zeroBytes(word ^ (ones &* 0x22))
            | zeroBytes(word ^ (ones &* 0x0A)) | zeroBytes(word ^ (ones &* 0x0D)) | (word & highs)
    }

    /// Scans one record from `start`, recording field bounds. Stateless across calls, so a record cut
    /// by the buffer's end is simply scanned again after more bytes arrive.
    func scanRecord() throws(CSVError) -> ScanResult {
        try scanFields().get()
    }

    /// The scan. Everything the loop touches is a local, and no nested function captures one: class
    /// properties cost an exclusivity check per byte, and captured variables one per field.
    private func scanFields() -> Result<ScanResult, CSVError> {
        let bytes = buffer
        let end = self.endIndex
        let atEOF = self.isAtEndOfFile
        let spans = self.spans
        let limit = fieldLimit
        let classes = Self.byteClasses
        var count = 0
        var encodingError: CSVError?
        var lines = 0
        var i = startIndex
        let recordStart = i
        while true {
            // At the start of a field.
            if i < end && bytes[i] == 0x22 {
                let openLine = currentLine + lines
                var j = i + 1
                var escaped = false
                while true {
                    if j >= end {
                        return atEOF ? .failure(fault(.unterminatedQuote, line: openLine, column: count + 1)) : .success(.needMore)
                    }
                    let byte = bytes[j]
                    let kind = classes[Int(byte)]
                    if kind <= 1 {
                        j += 1
                        continue
                    }
                    if kind == 2 {
                        if j + 1 >= end && !atEOF { return .success(.needMore) }
                        if j + 1 < end && bytes[j + 1] == 0x22 {
                            escaped = true
                            j += 2
                            continue
                        }
                        break
                    }
                    if kind == 3 {
                        lines += 1
                        j += 1
                        continue
                    }
                    if kind == 4 {
                        j += 1
                        continue
                    }
                    if kind == 5 {
                        note(.nulByte, line: currentLine + lines, column: count + 1, in: &encodingError)
                        j += 1
                        continue
                    }
                    switch Self.utf8SequenceLength(bytes + j, available: end - j) {
                    case .valid(let length): j += length
                    case .incomplete where !atEOF: return .success(.needMore)
                    default:
                        note(.invalidUTF8, line: currentLine + lines, column: count + 1, in: &encodingError)
                        j += 1
                    }
                }
                if count < limit { spans[count] = FieldSpan(start: i + 1, end: j, escaped: escaped) }
                count += 1
                i = j + 1
                if i < end {
                    let kind = classes[Int(bytes[i])]
                    if kind != 1 && kind != 3 && kind != 4 {
                        return .failure(fault(.textAfterClosingQuote, line: currentLine + lines, column: count))
                    }
                }
            } else {
                let fieldStart = i
                // Eight plain bytes at a time; the byte loop below takes the first special one. The
                // word is read little-endian whatever the machine, so its lowest flag is the first byte.
                while i + 8 <= end {
                    let special = Self.specialBytes(in: UInt64(littleEndian: UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)))
                    if special != 0 {
                        i += special.trailingZeroBitCount >> 3
                        break
                    }
                    i += 8
                }
                while i < end {
                    let kind = classes[Int(bytes[i])]
                    if kind == 0 {
                        i += 1
                        continue
                    }
                    if kind == 1 || kind == 3 || kind == 4 { break }
                    if kind == 2 { return .failure(fault(.quoteInUnquotedField, line: currentLine + lines, column: count + 1)) }
                    if kind == 5 {
                        note(.nulByte, line: currentLine + lines, column: count + 1, in: &encodingError)
                        i += 1
                        continue
                    }
                    switch Self.utf8SequenceLength(bytes + i, available: end - i) {
                    case .valid(let length): i += length
                    case .incomplete where !atEOF: return .success(.needMore)
                    default:
                        note(.invalidUTF8, line: currentLine + lines, column: count + 1, in: &encodingError)
                        i += 1
                    }
                }
                if i >= end && !atEOF { return .success(.needMore) }
                if count < limit { spans[count] = FieldSpan(start: fieldStart, end: i, escaped: false) }
                count += 1
            }
            // After a field: a comma, a line end, or the end of the file.
            if i >= end {
                if !atEOF { return .success(.needMore) }
                return complete(next: i, recordStart: recordStart, recordEnd: i, fields: count, lines: lines, encodingError: encodingError)
            }
            switch bytes[i] {
            case 0x2C:
                i += 1
                if i >= end {
                    if !atEOF { return .success(.needMore) }
                    // "a,b," at the end of the file: a last, empty field.
                    if count < limit { spans[count] = FieldSpan(start: i, end: i, escaped: false) }
                    count += 1
                    return complete(
                        next: i, recordStart: recordStart, recordEnd: i, fields: count, lines: lines, encodingError: encodingError)
                }
            case 0x0A:
                return complete(
                    next: i + 1, recordStart: recordStart, recordEnd: i, fields: count, lines: lines + 1, encodingError: encodingError)
            default:
                if i + 1 >= end && !atEOF { return .success(.needMore) }
                guard i + 1 < end, bytes[i + 1] == 0x0A else {
                    return .failure(fault(.bareCarriageReturn, line: currentLine + lines, column: count + 1))
                }
                return complete(
                    next: i + 2, recordStart: recordStart, recordEnd: i, fields: count, lines: lines + 1, encodingError: encodingError)
            }
        }
    }

    private func complete(
        next: Int, recordStart: Int, recordEnd: Int, fields: Int, lines: Int, encodingError: CSVError?
    ) -> Result<ScanResult, CSVError> {
        self.recordStart = recordStart
        self.recordEnd = recordEnd
        self.fieldCount = fields
        return .success(.complete(next: next, lines: lines, encodingError: encodingError))
    }

    private func fault(_ kind: CSVError.Kind, line: Int, column: Int) -> CSVError {
        CSVError(path: path, line: line, column: column, field: headerName(column), kind: kind)
    }

    /// Keeps the record's first content error (a NUL, bad UTF-8); the scan goes on to the record's end.
    private func note(_ kind: CSVError.Kind, line: Int, column: Int, in error: inout CSVError?) {
        if error == nil { error = fault(kind, line: line, column: column) }
    }

    private func headerName(_ column: Int) -> String? {
        column >= 1 && column <= header.count ? header[column - 1] : nil
    }

    enum UTF8Check {
        case valid(Int)
        case incomplete
        case invalid
    }

    /// Checks one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
    static func utf8SequenceLength(_ p: UnsafeMutablePointer<UInt8>, available: Int) -> UTF8Check {
        let lead = p[0]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return .invalid
        }
        for k in 1..<length {
            guard k < available else { return .incomplete }
            let byte = p[k]
            if k == 1 {
                guard byte >= low && byte <= high else { return .invalid }
            } else {
                guard byte & 0xC0 == 0x80 else { return .invalid }
            }
        }
        return .valid(length)
    }
}

extension CSVReader {
    /// Flags the bytes of `word` (eight bytes, little-endian) that are a line feed, a carriage
    /// return or a quote, as ``specialBytes(in:)`` does.
    @inline(__always)
    static func lineBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        return zeroBytes(word ^ (ones &* 0x0A)) | zeroBytes(word ^ (ones &* 0x0D)) | zeroBytes(word ^ (ones &* 0x22))
    }
}
