import Crypto
import Foundation
import SeedInstall
import SeedPipeline

/// The files an install left in `folder`, sorted, but for its hidden `.<dataset>.lock`, which stays.
func installedFiles(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".lock") }.sorted()
}

/// Rewrites a channel's manifest for `version` and points latest.json at the new bytes, as a hostile
/// server (or a test of what the installer does with a field) would.
func rewriteManifest(in channel: String, version: Int64, _ change: (inout [String: JSONValue], inout ReleasePointer) -> Void) throws {
    let file = channel + "/manifests/\(version).json"
    var manifest = try Manifest(data: try Data(contentsOf: URL(fileURLWithPath: file)), path: file)
    var pointer = try ReleasePointer(data: try Data(contentsOf: URL(fileURLWithPath: channel + "/latest.json")), source: "p")
    change(&manifest.values, &pointer)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
    try manifest.fileData.write(to: URL(fileURLWithPath: file))
    pointer.manifestSHA256 = Data(SHA256.hash(data: manifest.fileData)).hexString
    try pointer.data.write(to: URL(fileURLWithPath: channel + "/latest.json"))
}
