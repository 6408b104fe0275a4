import Foundation

/// Collects rejected rows: counts them, keeps the first few for the terminal, and streams every one
/// to a rejects CSV (`file,line,column,field,reason,record`) so memory stays flat however many there are.
final class RejectCollector: @unchecked Sendable {
    /// How many rejected rows are kept in memory for display.
    static let shownLimit = 50

    private(set) var count = 0
    private(set) var shown: [RowError] = []
    /// Lines rejected per file, so later passes (duplicate checks) do not report a row twice.
    private(set) var rejectedLines: [String: Set<Int>] = [:]
    private let path: String
    private var handle: FileHandle?
    /// The parsing and the inserting thread both reject rows.
    private let lock = NSLock()

    /// - Parameter path: where to stream the rejects; created on the first rejected row.
    init(path: String) {
        self.path = path
    }

    deinit { try? handle?.close() }

    func add(_ error: RowError) {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        if shown.count < Self.shownLimit { shown.append(error) }
        rejectedLines[error.file, default: []].insert(error.line)
        if handle == nil {
            _ = FileManager.default.createFile(atPath: path, contents: Data("file,line,column,field,reason,record\n".utf8))
            handle = FileHandle(forWritingAtPath: path)
            _ = try? handle?.seekToEnd()
        }
        let fields = [
            error.file, String(error.line), error.column.map(String.init) ?? "", error.field ?? "", error.reason, error.record,
        ]
        let line = fields.map(Self.escape).joined(separator: ",") + "\n"
        try? handle?.write(contentsOf: Data(line.utf8))
    }

    /// Closes the file; returns its path when any row was rejected.
    func finish() throws -> String? {
        guard let handle else { return nil }
        try handle.synchronize()
        try handle.close()
        self.handle = nil
        return path
    }

    /// RFC 4180 quoting: quote a field holding a comma, quote or line break, doubling quotes.
    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
