/// A problem in a CSV file, located by file, line, column (field number) and field name.
public struct CSVError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case cannotOpen(String)
        case readFailed(String)
        /// The file has no bytes (or only a byte order mark).
        case emptyFile
        /// The file has a header and no data records.
        case headerOnly
        case emptyHeaderName
        case duplicateHeaderName(String)
        /// A quoted field never ends; reported where the quote opened.
        case unterminatedQuote
        case textAfterClosingQuote
        case quoteInUnquotedField
        /// A carriage return not followed by a line feed outside quotes.
        case bareCarriageReturn
        case tooManyFields(expected: Int, found: Int)
        case tooFewFields(expected: Int, found: Int)
        case invalidUTF8
        case nulByte
        /// A record longer than the reader's limit; it was skipped.
        case recordTooLong(limit: Int)
        /// The file changed while it was read: its size when opened, the bytes read, its size at the end.
        case changedWhileRead(opened: Int, read: Int, now: Int)
    }

    public var path: String
    public var line: Int
    /// 1-based field number, when one field is at fault.
    public var column: Int?
    /// The header name of that column, when known.
    public var field: String?
    public var kind: Kind

    public init(path: String, line: Int, column: Int? = nil, field: String? = nil, kind: Kind) {
        self.path = path
        self.line = line
        self.column = column
        self.field = field
        self.kind = kind
    }

    /// Whether the reader can go on with the next record after this error: the record's bounds were
    /// found, only its content is wrong. The others leave the record boundaries unknown.
    public var isRecoverable: Bool {
        switch kind {
        case .tooManyFields, .tooFewFields, .invalidUTF8, .nulByte, .recordTooLong: true
        default: false
        }
    }

    /// What is wrong and what to do, without the location.
    public var reason: String {
        switch kind {
        case .cannotOpen(let why): "cannot open the file (\(why)); check the path and permissions"
        case .readFailed(let why): "cannot read the file (\(why))"
        case .emptyFile: "the file is empty; a CSV needs a header line and at least one record"
        case .headerOnly: "the file has a header but no records; export the data again"
        case .emptyHeaderName: "the header has an empty column name; name every column"
        case .duplicateHeaderName(let name): "the header names \"\(name)\" twice; column names must be unique"
        case .unterminatedQuote:
            "a quoted field starts here and never ends; close the quote (a quote inside a quoted field is written \"\")"
        case .textAfterClosingQuote:
            "text after a closing quote; a quoted field must end at a comma or line end — double the quote (\"\") to include one"
        case .quoteInUnquotedField: "a quote inside an unquoted field; quote the whole field and double the quote (\"\")"
        case .bareCarriageReturn: "a carriage return without a line feed; end lines with LF or CRLF, or quote the field"
        case .tooManyFields(let expected, let found):
            "the record has \(found) fields, the header \(expected); quote fields that contain commas"
        case .tooFewFields(let expected, let found):
            "the record has \(found) fields, the header \(expected); add the missing fields (empty is fine)"
        case .invalidUTF8: "invalid UTF-8; save the file as UTF-8"
        case .nulByte: "a NUL byte; the file is binary or corrupt"
        case .recordTooLong(let limit):
            "the record is longer than \(limit) bytes (--max-record-size); skipped, and only its start kept here. A stray quote makes one record of many lines"
        case .changedWhileRead(let opened, let read, let now):
            "the file changed while it was read (\(opened) bytes when opened, \(read) read, \(now) now); build again once whatever writes it has finished"
        }
    }

    /// `path:line:column (field "name"): reason`.
    public var description: String {
        var location = "\(path):\(line)"
        if let column { location += ":\(column)" }
        if let field { location += " (field \"\(field)\")" }
        return "\(location): \(reason)"
    }
}
