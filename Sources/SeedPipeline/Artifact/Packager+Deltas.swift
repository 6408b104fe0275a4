import Foundation
import SeedInstall

/// The deltas a release lists: the build's, kept under the size rule and renamed into place before
/// the manifest is written; delta files the manifest does not list are removed after it.
extension Packager {
    /// Where a manifest's deltas come from.
    enum DeltaSource {
        /// Written by the build (none when it followed no base).
        case built(PendingDeltas?)
        /// Listed by the manifest already in the folder (repackaging a store): kept where they still
        /// lead to this store's content and their files are intact.
        case listed

        var pending: PendingDeltas? {
            if case .built(let pending) = self { return pending }
            return nil
        }

        var isListed: Bool {
            if case .listed = self { return true }
            return false
        }
    }

    struct ListedDeltas {
        var entries: [Manifest.DeltaEntry] = []
        var omitted: [OmittedDelta] = []
    }

    /// Renames the build's deltas smaller than their share of the artifact into place; the others are
    /// removed, each with the reason.
    func commitDeltas(_ pending: PendingDeltas?, artifactBytes: Int64) throws -> ListedDeltas {
        guard let pending else { return ListedDeltas() }
        var listed = ListedDeltas(omitted: pending.omitted)
        for file in pending.files {
            let share = Self.share(file.entry.bytes, of: artifactBytes)
            guard Double(file.entry.bytes) < pending.maxShare * Double(artifactBytes) else {
                unlink(file.temporary)
                listed.omitted.append(
                    OmittedDelta(
                        fromDataVersion: file.entry.fromDataVersion,
                        reason:
                            "\(file.entry.bytes) bytes is \(share) of the artifact, not under the \(Self.percent(pending.maxShare)) the size rule allows (--delta-max-share); apps there download the full artifact"
                    ))
                continue
            }
            let path = ((file.temporary as NSString).deletingLastPathComponent as NSString).appendingPathComponent(file.entry.fileName)
            try AtomicFile.commit(file.temporary, to: path, mode: 0o444)
            listed.entries.append(file.entry)
        }
        return listed
    }

    /// The deltas the manifest at `manifestPath` lists that lead to `contentDigest` and whose files are
    /// as it states, while the store is the one that manifest describes (`storeSHA256`: a delta also
    /// carries the metadata tables, which `inspect --set` changes); the others with the reason they
    /// are dropped.
    func listedDeltas(manifestPath: String, contentDigest: String?, storeSHA256: String) -> ListedDeltas {
        guard let data = FileManager.default.contents(atPath: manifestPath), let previous = try? Manifest(data: data, path: manifestPath)
        else {
            return ListedDeltas()
        }
        var listed = ListedDeltas()
        let folder = (manifestPath as NSString).deletingLastPathComponent
        for entry in previous.deltas {
            let path = (folder as NSString).appendingPathComponent(entry.fileName)
            let problem: String?
            if entry.toContentDigest != contentDigest {
                problem = "it leads to other content than this store's"
            } else if previous.store?.sha256 != storeSHA256 {
                problem = "the store changed since it was made (its metadata, which a delta carries too)"
            } else if !PendingDeltas.isPlainFileName(entry.fileName) {
                problem = "its file name \"\(entry.fileName)\" is not a file beside the manifest"
            } else if let file = try? FileDigest(of: path) {
                problem =
                    file.matches(bytes: entry.bytes, sha256: entry.sha256)
                    ? nil : "\(path) is not the file the manifest listed (\(file.mismatch(bytes: entry.bytes, sha256: entry.sha256)))"
            } else {
                problem = "\(path) is missing"
            }
            if let problem {
                listed.omitted.append(
                    OmittedDelta(fromDataVersion: entry.fromDataVersion, reason: "\(problem); build again following the base to write it"))
            } else {
                listed.entries.append(entry)
            }
        }
        return listed
    }

    /// Removes the dataset's delta files beside the manifest that it does not list (a rebuild's leftovers).
    func removeUnlistedDeltas(beside manifestPath: String, dataset: String, listed: [Manifest.DeltaEntry]) {
        let folder = (manifestPath as NSString).deletingLastPathComponent
        for path in PendingDeltas.deltaFiles(in: folder, dataset: dataset, keeping: Set(listed.map(\.fileName))) { unlink(path) }
    }

    /// `0.12%`: a delta's size as a share of the artifact, for reports.
    static func share(_ bytes: Int64, of artifactBytes: Int64) -> String {
        percent(artifactBytes > 0 ? Double(bytes) / Double(artifactBytes) : 0)
    }

    /// `50%`, `0.12%`, `0.0031%`: a fraction as a percentage, with the digits a small one needs.
    public static func percent(_ fraction: Double) -> String {
        let value = fraction * 100
        return value >= 10
            ? String(format: "%.0f%%", value)
            : value >= 0.01 || value == 0 ? String(format: "%.2f%%", value) : String(format: "%.4f%%", value)
    }
}

extension PackagedArtifact {
    /// A delta's size as a fraction of the artifact's.
    package func share(of delta: Manifest.DeltaEntry) -> Double {
        gzip.outputBytes > 0 ? Double(delta.bytes) / Double(gzip.outputBytes) : 0
    }
}

extension Packager {
    /// The changes the folder's manifest lists, when it is of the same content (a store packaged again).
    static func listedChanges(manifestPath: String, contentDigest: String?) -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: manifestPath), let previous = try? Manifest(data: data, path: manifestPath),
            previous.values["contentDigest"]?.stringValue == contentDigest
        else { return nil }
        return previous.values[ChangeReport.manifestKey]
    }
}
