import Foundation
import SeedInstall

extension DeltaReader {
    /// Reads the delta file at `path`.
    /// - Parameters:
    ///   - path: the delta file (`.delta.gz`).
    ///   - maxBytes: the most bytes the delta may inflate to (a bound against a gzip bomb).
    /// - Throws: ``DeltaError`` when the file is missing, not gzip, truncated, damaged or inconsistent.
    package static func read(_ path: String, maxBytes: Int = 1 << 30) throws(DeltaError) -> Delta {
        guard let compressed = FileManager.default.contents(atPath: path) else { throw DeltaError(.io, "\(path): cannot read the delta") }
        return try decode(gzip: compressed, maxBytes: maxBytes, name: path)
    }
}
