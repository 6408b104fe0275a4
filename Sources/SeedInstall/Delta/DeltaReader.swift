import Foundation

/// Reads a whole delta file into memory and checks it, before anything is applied.
package enum DeltaReader {
    /// Reads the delta file at `path`.
    /// - Parameters:
    ///   - path: the delta file (`.delta.gz`).
    ///   - maxBytes: the most bytes the delta may inflate to (a bound against a gzip bomb).
    /// - Throws: ``DeltaError`` when the file is missing, not gzip, truncated, damaged or inconsistent.
    package static func read(_ path: String, maxBytes: Int = 1 << 30) throws(DeltaError) -> Delta {
        guard let compressed = FileManager.default.contents(atPath: path) else { throw DeltaError(.io, "\(path): cannot read the delta") }
        return try decode(gzip: compressed, maxBytes: maxBytes, name: path)
    }

    /// Decodes a delta held in memory (its gzip bytes).
    /// - Parameters:
    ///   - compressed: the delta file's bytes, gzip.
    ///   - maxBytes: the most bytes the delta may inflate to (a bound against a gzip bomb).
    ///   - name: the file or URL, for messages.
    ///   - shouldStop: asked every 4,096 operations; once it says so, decoding stops with an
    ///   `io` error (the caller knows why: its deadline passed, or it was cancelled).
    package static func decode(
        gzip compressed: Data, maxBytes: Int = 1 << 30, name: String = "delta", stopWhen shouldStop: (() -> Bool)? = nil
    ) throws(DeltaError) -> Delta {
        let bytes: Data
        do {
            bytes = try RawInflate.inflate(compressed, limit: maxBytes, windowBits: 31)
        } catch {
            throw DeltaError(.corrupt, "\(name): \(error.reason)")
        }
        var decoder = DeltaDecoder(Array(bytes), stopWhen: shouldStop)
        do {
            return try decoder.decode()
        } catch {
            throw DeltaError(error.kind, "\(name): \(error.message)")
        }
    }
}
