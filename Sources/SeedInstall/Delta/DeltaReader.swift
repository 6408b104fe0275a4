import Foundation

/// Reads a whole delta file into memory and checks it, before anything is applied.
public enum DeltaReader {
    /// - Parameter maxBytes: the most bytes the delta may inflate to (a bound against a gzip bomb).
    /// - Throws: ``DeltaError`` when the file is missing, not gzip, truncated, damaged or inconsistent.
    public static func read(_ path: String, maxBytes: Int = 1 << 30) throws(DeltaError) -> Delta {
        guard let compressed = FileManager.default.contents(atPath: path) else { throw DeltaError(.io, "\(path): cannot read the delta") }
        return try decode(gzip: compressed, maxBytes: maxBytes, name: path)
    }

    /// Decodes a delta held in memory (its gzip bytes).
    public static func decode(gzip compressed: Data, maxBytes: Int = 1 << 30, name: String = "delta") throws(DeltaError) -> Delta {
        let bytes: Data
        do {
            bytes = try RawInflate.inflate(compressed, limit: maxBytes, windowBits: 31)
        } catch {
            throw DeltaError(.corrupt, "\(name): \(error.reason)")
        }
        var decoder = DeltaDecoder(Array(bytes))
        do {
            return try decoder.decode()
        } catch {
            throw DeltaError(error.kind, "\(name): \(error.message)")
        }
    }
}
