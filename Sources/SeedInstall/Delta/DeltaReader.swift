import Foundation

/// Decodes a delta held in memory and checks it, before anything is applied (the build reads one
/// from a file: `SeedPipeline/Delta/DeltaReader+File.swift`).
package enum DeltaReader {
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
