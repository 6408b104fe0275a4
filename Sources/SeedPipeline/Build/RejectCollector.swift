import Foundation

/// Collects rejected rows: counts them, keeps the first few for the terminal, and streams every one
/// to a rejects CSV (`file,line,column,field,reason,record`) so memory stays flat however many there are.
///
/// Safe to share: ``add(_:)``, which both loading threads call, holds `lock`; the counts, ``shown``, ``rejectedLines``
/// and ``finish()`` are read on the build's thread between loads, after the producer's thread ended
/// (``BatchProducer/waitUntilDone()``).
final class RejectCollector: @unchecked Sendable {
    /// How many rejected rows are kept in memory for display.
    static let shownLimit = 50

    private(set) var count = 0
    private(set) var shown: [RowError] = []
    /// Lines rejected per file, so later passes (duplicate checks) do not report a row twice.
    private(set) var rejectedLines: [String: Set<Int>] = [:]
    private let path: String
    private var handle: FileHandle?
    /// The first failure to write the file; ``finish()`` reports it, so no reject is lost silently.
    private var writeFailure: String?
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
        guard writeFailure == nil else { return }
        if handle == nil {
            guard FileManager.default.createFile(atPath: path, contents: Data("file,line,column,field,reason,record\n".utf8)),
                let opened = FileHandle(forWritingAtPath: path)
            else {
                writeFailure = "cannot create the rejects file"
                return
            }
            handle = opened
            _ = try? opened.seekToEnd()
        }
        let fields = [
            error.file, String(error.line), error.column.map(String.init) ?? "", error.field ?? "", error.reason, error.record,
        ]
        let line = fields.map(Self.escape).joined(separator: ",") + "\n"
        do {
            try handle?.write(contentsOf: Data(line.utf8))
        } catch {
            writeFailure = "cannot write the rejects file: \(error.localizedDescription)"
        }
    }

    /// Closes the file; returns its path when any row was rejected.
    /// - Throws: ``IngestError`` (cannot create output) when a reject could not be written.
    func finish() throws -> String? {
        if let writeFailure {
            throw IngestError(.cannotCreateOutput, file: path, "\(writeFailure); check free space and permissions in the output folder")
        }
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
