import Foundation
import SeedInstall

extension ReleasePointer {
    /// The file's bytes: pretty-printed JSON with sorted keys.
    package var data: Data {
        let value: JSONValue = .object([
            "formatVersion": 1, "dataset": .string(dataset), "dataVersion": .integer(dataVersion),
            "manifest": .string(manifest), "manifestSHA256": .string(manifestSHA256), "contentDigest": .string(contentDigest),
            "releases": .array(releases.map(JSONValue.integer)),
        ])
        return Data((value.prettyText + "\n").utf8)
    }

    /// `manifests/<version>-<first 16 hex of its SHA-256>.json`: a refreshed manifest of a data version
    /// already published (published objects other than `latest.json` are never replaced).
    package static func refreshedManifestPath(dataVersion: Int64, sha256: String) -> String {
        "manifests/\(dataVersion)-\(sha256.prefix(16)).json"
    }
}
