import ArgumentParser
import Foundation
import SeedInstall
import SeedPipeline

/// `seedbuild inspect FILE`: a seed store's metadata, hashes, counts, sizes and checksums.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print the metadata of a .sqlite store, a .sqlite.gz artifact or a manifest.json; set custom keys with --set.")

    @Argument(help: "A .sqlite, .sqlite.gz or manifest.json file.")
    var file: String

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set a custom metadata key on an uncompressed store; the value is JSON or else a string (repeatable).", valueName: "key=value"))
    var assignments: [String] = []

    @Flag(help: "Print one JSON object whose keys are the seed_metadata keys (plus inspectedFile).")
    var json = false

    func validate() throws {
        for pair in assignments where !pair.contains("=") || pair.hasPrefix("=") {
            throw ValidationError("--set takes key=value, got \"\(pair)\"")
        }
    }

    func run() throws {
        try CommandFailure.reportingFailure(asJSON: json) { try inspect() }
    }

    private func inspect() throws {
        if !assignments.isEmpty {
            try CommandFailure.exitOnError { () throws(StoreError) in try setKeys() }
        }
        let inspection = try CommandFailure.exitOnError { () throws(StoreError) in try StoreInspection.inspect(file) }
        print(json ? inspection.jsonObject.prettyText : InspectReport.text(inspection))
    }

    private func setKeys() throws(StoreError) {
        var metadata = try StoreMetadata.read(at: URL(fileURLWithPath: file))
        for pair in assignments {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts[0]
            let text = parts.count > 1 ? parts[1] : ""
            if StoreMetadata.managedKeys.contains(key) {
                throw StoreError(.refused, path: file, "\"\(key)\" is managed by the store and cannot be set; choose another key")
            }
            metadata[key] = (try? JSONValue(jsonText: text)) ?? .string(text)
        }
        try StoreMetadata.write(metadata, at: URL(fileURLWithPath: file))
    }
}

/// The text form of an inspection.
enum InspectReport {
    static func text(_ inspection: StoreInspection) -> String {
        var lines = ["\(inspection.path): \(inspection.kind.rawValue), \(inspection.fileBytes) bytes, sha256 \(inspection.fileSHA256)"]
        if let bytes = inspection.storeBytes, let sha = inspection.storeSHA256 {
            lines.append("store inside: \(bytes) bytes, sha256 \(sha)")
        }
        if let digest = inspection.setDigest {
            lines.append("set digest (every table and the schema, as a manifest's setDigest): \(abbreviated(digest))")
        }
        if let missing = inspection.missingModel {
            lines.append("model: \(missing); query, verify and migrate read it with --model PATH")
        }
        let values = inspection.manifest?.values ?? inspection.metadata?.values ?? [:]
        for key in values.keys.sorted() {
            let value = values[key]!
            switch key {
            case StoreMetadata.Key.versionHashes:
                lines.append("versionHashes:")
                for (entity, hash) in (value.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                    lines.append("  \(hash.stringValue ?? hash.jsonText)  \(entity)")
                }
            case StoreMetadata.Key.sources:
                lines.append("sources:")
                for source in value.arrayValue ?? [] {
                    let object = source.objectValue ?? [:]
                    lines.append(
                        "  \(object["file"]?.stringValue ?? "?") → \(object["entity"]?.stringValue ?? "?"): \(object["rowsRead"]?.jsonText ?? "?") read, \(object["rowsLoaded"]?.jsonText ?? "?") loaded, \(object["rowsRejected"]?.jsonText ?? "?") rejected, \(object["bytes"]?.jsonText ?? "?") bytes, sha256 \(object["sha256"]?.stringValue ?? "?")"
                    )
                }
            case SetDigest.manifestKey:
                lines.append("\(key): \(abbreviated(value.stringValue ?? value.jsonText))")
            default:
                lines.append("\(key): \(value.stringValue ?? value.jsonText)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A set digest's first characters: its 2,048 bytes whole are for --json.
    private static func abbreviated(_ digest: String) -> String {
        digest.count > 40 ? "\(digest.prefix(40))… (\(digest.count) characters; --json prints it whole)" : digest
    }
}
