import Foundation
import SeedStore

/// An output folder's store, artifact and manifest must come from one build. The builder removes the
/// old manifest and artifact before a new store takes its name; this check refuses a folder mixed
/// some other way (files copied in, a tool other than seedbuild).
enum MatchingSet {
    /// The manifest's store file beside it: nil when absent or matching, else what differs.
    static func storeMismatch(manifestPath: String, manifest: Manifest) throws -> String? {
        guard let entry = manifest.store else { return nil }
        let path = ((manifestPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(entry.fileName)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let digest = try FileDigest(of: path)
        guard digest.bytes != entry.bytes || digest.sha256 != entry.sha256 else { return nil }
        return
            "\(path) is \(digest.bytes) bytes with SHA-256 \(digest.sha256), the manifest describes \(entry.bytes) bytes with \(entry.sha256): the folder mixes two builds; build again"
    }
}
