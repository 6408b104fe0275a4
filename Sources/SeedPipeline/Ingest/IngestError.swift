/// A problem with the build's inputs that stops the build: a missing file, a bad header, a bad project file.
///
/// Row-level problems are ``RowError``s instead: they are collected and written to the rejects file.
public struct IngestError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// An input file is missing (exit status 66).
        case missingInput
        /// An input file is malformed (exit status 65).
        case badData
        /// `seedbuild.json` or a mapping file is malformed (exit status 65).
        case badProjectFile
        /// More rows were rejected than allowed (exit status 65).
        case tooManyRejects
        /// The output cannot be written (exit status 73).
        case cannotCreateOutput
        /// Reading or writing failed: a disk error, no space left (exit status 74).
        case ioFailure
        /// An input changed while it was read; a later run may pass (exit status 75).
        case inputChanged
        /// Another run holds the output folder; a later run may pass (exit status 75).
        case busy
        /// A channel the build reads (its base, its pointer) cannot be read now: missing, a 5xx, a
        /// timeout. A later run may pass (exit status 75); the build never starts the channel afresh on its own.
        case unavailable
    }

    public let kind: Kind
    public let file: String
    public let line: Int?
    public let column: Int?
    public let field: String?
    /// What is wrong and what to do.
    public let message: String
    /// With ``Kind/tooManyRejects``: the first rejected rows, to show.
    public let rejectedRows: [RowError]

    public init(
        _ kind: Kind, file: String, line: Int? = nil, column: Int? = nil, field: String? = nil, _ message: String,
        rejectedRows: [RowError] = []
    ) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
        self.rejectedRows = rejectedRows
    }

    /// A CSV problem that stops the build, with the exit status its kind calls for.
    public init(_ error: CSVError) {
        let kind: Kind
        switch error.kind {
        case .cannotOpen: kind = .missingInput
        case .readFailed: kind = .ioFailure
        case .changedWhileRead: kind = .inputChanged
        default: kind = .badData
        }
        self.init(kind, file: error.path, line: error.line == 0 ? nil : error.line, column: error.column, field: error.field, error.reason)
    }

    public var description: String {
        var location = file
        if let line { location += ":\(line)" }
        if let column { location += ":\(column)" }
        if let field { location += " (field \"\(field)\")" }
        return "\(location): \(message)"
    }
}

/// One rejected row: where it is, why, and the record as it stood in the file.
public struct RowError: Sendable, Hashable, CustomStringConvertible {
    public let file: String
    public let line: Int
    /// 1-based field number, when one field is at fault.
    public let column: Int?
    public let field: String?
    public let reason: String
    /// The original record's bytes (UTF-8), for the rejects file.
    public let record: String

    public init(file: String, line: Int, column: Int?, field: String?, reason: String, record: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.reason = reason
        self.record = record
    }

    public var description: String {
        var location = "\(file):\(line)"
        if let column { location += ":\(column)" }
        if let field { location += " (field \"\(field)\")" }
        return "\(location): \(reason)"
    }
}
