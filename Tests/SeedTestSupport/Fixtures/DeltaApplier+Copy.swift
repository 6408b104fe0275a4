import Foundation
import SeedInstall

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension DeltaApplier {
    /// Applies `delta` as a device does, to a copy of `base` written under `output` once checked
    /// (``applyStatements(_:inPlace:base:stopWhen:)`` then ``checkResult(of:at:base:stopWhen:)``); any
    /// failure leaves nothing under `output`, and `base` untouched.
    /// - Returns: the result's metadata (its data version and digest are the delta's `to`).
    @discardableResult
    package static func apply(_ delta: Delta, to base: String, output: String, outputMode: mode_t = 0o444) throws -> StoreMetadata {
        if FileManager.default.fileExists(atPath: base) { try StoreFile.foldWriteAheadLog(base) }
        return try AtomicFile.changeCopy(of: base, to: output, mode: outputMode) { temporary in
            try applyStatements(delta, inPlace: temporary, base: base)
            return try checkResult(of: delta, at: temporary, base: base)
        }
    }

    /// The content digest of the rows of the store at `path`, recomputed as the device's full check
    /// recomputes it (nil for a Core Data store that carries no model).
    package static func recomputedContentDigest(of path: String) throws -> String? {
        let store = try StoreConnection(path: path, mode: .immutable)
        return try recomputedDigest(store, metadata: try StoreMetadata.read(from: store))
    }
}
