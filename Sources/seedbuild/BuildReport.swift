import Foundation
import SeedPipeline

/// Prints what a build did: a short text summary, or a JSON object with `--json`.
enum BuildReport {
    /// - Parameter printsJSON: false for the default command, which prints one object for every stage at its end (``RunReport``).
    static func print(_ built: BuiltStore, packaged: PackagedArtifact?, flags: BuildFlags, printsJSON: Bool = true) {
        if !flags.quiet {
            for warning in built.warnings { CommandFailure.printError("warning: \(warning)") }
            for reject in built.shownRejects { CommandFailure.printError("rejected: \(reject)") }
            if built.rejected > built.shownRejects.count {
                CommandFailure.printError(
                    "… and \(built.rejected - built.shownRejects.count) more rejected rows in \(built.rejectsPath ?? "the rejects file")")
            }
        }
        if flags.json {
            if printsJSON { Swift.print(json(built, packaged: packaged)) }
        } else if !flags.quiet {
            let counts = built.rowCounts.keys.sorted().map { "\($0) \(built.rowCounts[$0]!)" }.joined(separator: ", ")
            var line = "built \(built.storePath): \(counts) rows"
            if built.rejected > 0 { line += "; \(built.rejected) rejected, see \(built.rejectsPath ?? "")" }
            Swift.print(line)
            for join in built.uncertainJoinTables {
                Swift.print(
                    "join table of \(join.relationships.joined(separator: " and ")): \(join.table), also readable as \(join.view) (a view); which name Core Data expects is not certain (docs/store-format.md)"
                )
            }
            if let changes = built.changes {
                Swift.print("changes against the base\(changes.fromDataVersion.map { " (data version \($0))" } ?? ""):")
                for entity in changes.entities {
                    Swift.print(
                        "  \(entity.entity): \(entity.baseRows) → \(entity.rows) rows; \(entity.added) added, \(entity.removed) removed, \(entity.changed) changed"
                    )
                }
            }
            guard let packaged else { return }
            let gzip = packaged.gzip
            let ratio = gzip.inputBytes > 0 ? Double(gzip.outputBytes) / Double(gzip.inputBytes) * 100 : 0
            Swift.print(
                "compressed \(packaged.artifactPath): \(ProgressDisplay.bytes(Int(gzip.outputBytes))) (\(String(format: "%.0f", ratio))% of \(ProgressDisplay.bytes(Int(gzip.inputBytes)))); manifest \(packaged.manifestPath)"
            )
            for delta in packaged.deltas {
                Swift.print(
                    "delta from \(delta.fromDataVersion): \(delta.fileName), \(ProgressDisplay.bytes(Int(delta.bytes))) (\(Packager.percent(packaged.share(of: delta))) of the artifact)"
                )
            }
        }
        if !flags.quiet, let packaged {
            for omitted in packaged.omittedDeltas { CommandFailure.printError("warning: \(omitted)") }
        }
    }

    /// A change report (``ChangeReport/jsonValue``) as the report's objects are made.
    static func changes(_ report: ChangeReport) -> Any {
        report.jsonValue.foundationObject
    }

    static func json(_ built: BuiltStore, packaged: PackagedArtifact?) -> String {
        RunReport.text(object(built, packaged: packaged))
    }

    static func object(_ built: BuiltStore, packaged: PackagedArtifact?) -> [String: Any] {
        var object: [String: Any] = [
            "store": built.storePath,
            "rowCounts": built.rowCounts,
            "rejected": built.rejected,
            "sources": built.sources.map { source in
                [
                    "entity": source.entity, "file": source.file, "bytes": source.bytes, "sha256": source.sha256,
                    "rowsRead": source.rowsRead, "rowsLoaded": source.rowsLoaded, "rowsRejected": source.rowsRejected,
                ] as [String: Any]
            },
            "warnings": built.warnings,
            "timings": built.timings.phases.map { ["phase": $0.name, "seconds": ($0.seconds * 1000).rounded() / 1000] as [String: Any] },
        ]
        if let rejects = built.rejectsPath { object["rejectsFile"] = rejects }
        if let changes = built.changes { object["changes"] = BuildReport.changes(changes) }
        if !built.uncertainJoinTables.isEmpty {
            object["uncertainJoinTables"] = built.uncertainJoinTables.map { join in
                ["relationships": join.relationships, "table": join.table, "view": join.view, "nameCertain": false] as [String: Any]
            }
        }
        if let packaged {
            object["artifact"] =
                [
                    "path": packaged.artifactPath, "bytes": packaged.gzip.outputBytes, "sha256": packaged.gzip.outputSHA256,
                    "storeBytes": packaged.gzip.inputBytes, "storeSHA256": packaged.gzip.inputSHA256,
                ] as [String: Any]
            object["manifest"] = packaged.manifestPath
            object["deltas"] = packaged.deltas.map { delta in
                [
                    "fromDataVersion": delta.fromDataVersion, "file": delta.fileName, "bytes": delta.bytes, "sha256": delta.sha256,
                    "shareOfArtifact": packaged.share(of: delta),
                ] as [String: Any]
            }
            object["deltasLeftOut"] = packaged.omittedDeltas.map { omitted in
                var entry: [String: Any] = ["reason": omitted.reason]
                if let from = omitted.fromDataVersion { entry["fromDataVersion"] = from }
                return entry
            }
        }
        return object
    }
}
