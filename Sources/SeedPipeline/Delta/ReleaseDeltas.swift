import Foundation
import SeedInstall

/// How many deltas a release publishes, and how large one may be (`--deltas`, `--delta-max-share`).
public struct DeltaPolicy: Sendable, Equatable {
    public static let defaultCount = 7
    public static let defaultMaxShare = 0.5

    /// K: a delta from each of the last K releases (the base and the K-1 its manifest has deltas
    /// from), straight to this one; 0 for none.
    public var count: Int
    /// A delta is published only while it is smaller than this share of the artifact (0 < share ≤ 1):
    /// past it, downloading the artifact costs little more and needs no base.
    public var maxShare: Double

    public init(count: Int = DeltaPolicy.defaultCount, maxShare: Double = DeltaPolicy.defaultMaxShare) {
        self.count = count
        self.maxShare = maxShare
    }
}

/// A delta the release does not publish, and why (the build report lists each one).
public struct OmittedDelta: Sendable, Equatable, CustomStringConvertible {
    /// The release it would have started from; nil when the base's manifest lists it unreadably.
    public var fromDataVersion: Int64?
    public var reason: String

    public init(fromDataVersion: Int64?, reason: String) {
        self.fromDataVersion = fromDataVersion
        self.reason = reason
    }

    public var description: String {
        "no delta from \(fromDataVersion.map(String.init) ?? "an earlier release"): \(reason)"
    }
}

/// The deltas a build wrote for its release, under temporary names in the output folder, until the
/// packager keeps those under the size rule, renames them into place and lists them in the manifest
/// (``Packager``). Files not committed are removed when this is released.
public final class PendingDeltas: Sendable {
    struct File {
        /// The delta under its temporary name; its entry's `fileName` is the final one.
        let temporary: String
        let entry: Manifest.DeltaEntry
    }

    let files: [File]
    /// The deltas left out already while building, and why.
    public let omitted: [OmittedDelta]
    let maxShare: Double

    init(files: [File], omitted: [OmittedDelta], maxShare: Double) {
        self.files = files
        self.omitted = omitted
        self.maxShare = maxShare
    }

    deinit {
        for file in files { unlink(file.temporary) }
    }

    /// `<dataset>-from-<data version>.delta.gz`: a delta's name beside the manifest.
    static func fileName(dataset: String, from dataVersion: Int64) -> String {
        "\(dataset)-from-\(dataVersion).delta.gz"
    }

    /// Whether a file in the output folder is one of `dataset`'s deltas.
    static func isDeltaFile(_ name: String, dataset: String) -> Bool {
        let prefix = "\(dataset)-from-", suffix = ".delta.gz"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return false }
        return name.dropFirst(prefix.count).dropLast(suffix.count).allSatisfy(\.isNumber)
    }

    /// The delta files of `dataset` in `folder` (full paths), except those named in `keeping`.
    static func deltaFiles(in folder: String, dataset: String, keeping: Set<String> = []) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        return names.filter { isDeltaFile($0, dataset: dataset) && !keeping.contains($0) }.sorted()
            .map { (folder as NSString).appendingPathComponent($0) }
    }

    /// Whether `name` is a plain file name a manifest may give a delta: no folder, nothing hidden.
    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && !name.hasPrefix(".")
    }

}

extension DeltaWriter {
    /// Writes a delta held in memory (a composed one) to `path`, under a temporary name until it is whole.
    static func write(_ delta: Delta, to path: String) throws(DeltaError) {
        let writer = try DeltaWriter(path: path, header: delta.header)
        for operation in delta.operations { try writer.write(operation) }
        try writer.finish()
    }
}
