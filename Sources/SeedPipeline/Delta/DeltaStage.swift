import Foundation
import SeedInstall
import SeedModel
import SeedStore

/// The deltas a build following a base writes for its release: the one-hop delta from the base
/// (the diff of the two stores), and one from each release the base's manifest has a delta from,
/// composed with it (`Delta.compose`) — the nightly job needs the base and its deltas, never the
/// older stores.
///
/// Nothing here fails the build: a previous delta that is missing, damaged or does not chain is
/// left out, and said so (``OmittedDelta``).
struct DeltaStage {
    let policy: DeltaPolicy
    var transport = HTTPTransport()

    /// Writes the deltas under temporary names beside `store` (the new release's, in its output
    /// folder), and counts each entity's changes (`schema`'s) from the one-hop diff as it reads the
    /// tables; nil changes when no diff ran or it failed.
    func run(base: BaseRelease, store: String, dataset: String, schema: StoreSchema? = nil) -> (PendingDeltas, ChangeReport?) {
        var work = Work(folder: (store as NSString).deletingLastPathComponent, dataset: dataset, schema: schema)
        if policy.count > 0 { write(base: base, store: store, into: &work) }
        return (PendingDeltas(files: work.files, omitted: work.omitted, maxShare: policy.maxShare), work.changes)
    }

    /// What the stage has written and left out so far.
    private struct Work {
        let folder: String
        let dataset: String
        let schema: StoreSchema?
        var files: [PendingDeltas.File] = []
        var changes: ChangeReport?
        var omitted: [OmittedDelta] = []

        func temporary(from version: Int64) -> String {
            AtomicFile.temporaryPath(
                for: (folder as NSString).appendingPathComponent(PendingDeltas.fileName(dataset: dataset, from: version)))
        }

        mutating func omit(_ version: Int64?, _ reason: String) {
            omitted.append(OmittedDelta(fromDataVersion: version, reason: reason))
        }
    }

    private func write(base: BaseRelease, store: String, into work: inout Work) {
        let target: DeltaRelease
        do {
            target = try StoreDiff.release(store)
        } catch {
            return work.omit(base.metadata.dataVersion, "\(error)")
        }
        guard let baseVersion = base.metadata.dataVersion, let baseDigest = base.metadata.contentDigest else {
            return work.omit(
                nil,
                "the base (\(base.location)) has no data version or content digest, so no delta can name it; follow a release seedbuild built"
            )
        }
        guard baseVersion <= target.dataVersion else {
            return work.omit(
                baseVersion, "the base's data version is newer than this build's \(target.dataVersion); a delta never leads back")
        }
        let from = DeltaRelease(dataVersion: baseVersion, contentDigest: baseDigest)

        // The one-hop delta: base → this release; kept only when listed, read first when composing.
        let oneHopPath = work.temporary(from: baseVersion)
        do {
            let (written, changes) = try StoreDiff().write(base: base.path, new: store, to: oneHopPath, schema: work.schema)
            work.changes = changes.map { changes in
                var named = changes
                (named.from, named.to) = (base.location, store)
                return named
            }
            guard written.header.from == from else {
                throw DeltaError(
                    .wrongBase,
                    "the base store read for the diff is data version \(written.header.from.dataVersion), not the base's \(baseVersion)")
            }
        } catch {
            unlink(oneHopPath)
            return work.omit(
                baseVersion,
                "the diff of the base (\(base.location)) and this release failed: \(error); no delta is published with this release")
        }
        var oneHopListed = false
        defer { if !oneHopListed { unlink(oneHopPath) } }
        // A rebuild of the base's own data version lists no delta from itself, but the base's deltas again.
        if baseVersion < target.dataVersion {
            do {
                // The store as published (the manifest's), else the file given as the base.
                let baseStoreSHA256 = try base.manifest?.store?.sha256 ?? FileDigest(of: base.path).sha256
                work.files.append(try file(oneHopPath, from: from, storeSHA256: baseStoreSHA256, to: target, dataset: work.dataset))
                oneHopListed = true
            } catch {
                work.omit(baseVersion, "\(error)")
            }
        }
        let previous = previousDeltas(of: base, before: baseVersion, into: &work)
        guard !previous.isEmpty else { return }
        let oneHop: Delta
        do {
            oneHop = try DeltaReader.read(oneHopPath)
        } catch {
            for entry in previous { work.omit(entry.fromDataVersion, "the one-hop delta written could not be read back: \(error)") }
            return
        }
        // Each earlier delta is read, composed and written on its own: on every core at once.
        let outcomes = Outcomes(count: previous.count)
        let paths = previous.map { work.temporary(from: $0.fromDataVersion) }
        let dataset = work.dataset
        DispatchQueue.concurrentPerform(iterations: previous.count) { index in
            let (entry, path) = (previous[index], paths[index])
            outcomes.set(
                index,
                Result {
                    let (earlier, source) = try read(entry, of: base)
                    let stated = DeltaRelease(dataVersion: entry.fromDataVersion, contentDigest: entry.fromContentDigest)
                    guard earlier.header.from == stated, earlier.header.to == from else {
                        throw DeltaError(
                            .wrongBase,
                            "\(source) joins data versions \(earlier.header.from.dataVersion) → \(earlier.header.to.dataVersion), not the \(entry.fromDataVersion) → \(baseVersion) its manifest entry says"
                        )
                    }
                    try DeltaWriter.write(try Delta.compose(earlier, oneHop), to: path)
                    return try file(path, from: stated, storeSHA256: entry.fromStoreSHA256, to: target, dataset: dataset)
                })
        }
        for (index, entry) in previous.enumerated() {
            switch outcomes.results[index] {
            case .success(let written)?:
                work.files.append(written)
            case .failure(let error)?:
                unlink(paths[index])
                work.omit(
                    entry.fromDataVersion,
                    "the base's delta from it cannot be used (\(error)); apps on that release download the full artifact")
            case nil:
                unlink(paths[index])
            }
        }
    }

    /// The composed deltas' outcomes, set from the threads composing them.
    private final class Outcomes: @unchecked Sendable {
        // Safe: every access goes through the lock.
        private let lock = NSLock()
        private var stored: [Result<PendingDeltas.File, Error>?]

        init(count: Int) { stored = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ result: Result<PendingDeltas.File, Error>) { lock.withLock { stored[index] = result } }

        var results: [Result<PendingDeltas.File, Error>?] { lock.withLock { stored } }
    }

    private func previousDeltas(of base: BaseRelease, before baseVersion: Int64, into work: inout Work) -> [Manifest.DeltaEntry] {
        let listed = base.manifest?.values["deltas"]?.arrayValue?.count ?? 0
        let entries = base.manifest?.deltas ?? []
        if entries.count < listed {
            work.omit(nil, "\(listed - entries.count) of the base manifest's deltas lack a field or have a wrong one, and are skipped")
        }
        var seen: Set<Int64> = []
        var usable: [Manifest.DeltaEntry] = []
        for entry in entries.sorted(by: { $0.fromDataVersion > $1.fromDataVersion }) {
            guard entry.fromDataVersion < baseVersion, seen.insert(entry.fromDataVersion).inserted else {
                work.omit(
                    entry.fromDataVersion,
                    "the base's manifest lists a delta from it twice, or from a release not older than the base, and is not followed")
                continue
            }
            usable.append(entry)
        }
        return Array(usable.prefix(policy.count - 1))
    }

    /// A written delta with its manifest entry.
    private func file(_ path: String, from: DeltaRelease, storeSHA256: String, to target: DeltaRelease, dataset: String) throws
        -> PendingDeltas.File
    {
        let written = try FileDigest(of: path)
        return PendingDeltas.File(
            temporary: path,
            entry: Manifest.DeltaEntry(
                fromDataVersion: from.dataVersion, fromContentDigest: from.contentDigest, fromStoreSHA256: storeSHA256,
                fileName: PendingDeltas.fileName(dataset: dataset, from: from.dataVersion), bytes: written.bytes, sha256: written.sha256,
                toContentDigest: target.contentDigest))
    }

    /// One of the base's deltas, read no further than its stated size and checked against its SHA-256;
    /// returns it and where it was read, for messages.
    private func read(_ entry: Manifest.DeltaEntry, of base: BaseRelease) throws -> (Delta, String) {
        // The sizes a base's manifest states are bounded by what a delta can be: smaller than the
        // artifact it stands in for (a larger one is never published), and inflating to no more
        // than twice the store plus room for a night's rows.
        let artifactBytes = base.manifest?.artifact?.bytes ?? 0
        guard entry.bytes > 0, entry.bytes <= artifactBytes else {
            throw DeltaError(
                .corrupt,
                "its manifest entry states \(entry.bytes) bytes, against the base's artifact of \(artifactBytes): not a delta this channel publishes"
            )
        }
        let storeBytes = base.manifest?.store?.bytes ?? 0
        let inflateLimit = Int(min(storeBytes.multipliedReportingOverflow(by: 2).partialValue + (64 << 20), 1 << 30))
        let data: Data?
        let source: String
        switch base.deltaLocation {
        case .channel(let location)?:
            guard ReleaseNames.isSHA256(entry.sha256) else {
                throw DeltaError(.corrupt, "its manifest entry's sha256 \"\(entry.sha256)\" is not a SHA-256")
            }
            let channel = try ReleaseChannel(location, transport: transport)
            let path = ReleasePointer.deltaPath(sha256: entry.sha256)
            source = channel.describe(path)
            data = try channel.read(path, maxBytes: entry.bytes)
        case .folder(let folder)?:
            guard PendingDeltas.isPlainFileName(entry.fileName) else {
                throw DeltaError(.corrupt, "its manifest entry names \"\(entry.fileName)\", not a file beside the manifest")
            }
            source = (folder as NSString).appendingPathComponent(entry.fileName)
            data = try ReleaseChannel(folder, transport: transport).read(entry.fileName, maxBytes: entry.bytes)
        case nil:
            throw DeltaError(.io, "the base came without the place of its deltas")
        }
        guard let data else { throw DeltaError(.io, "\(source) is missing") }
        let digest = FileDigest(of: data)
        guard digest.matches(bytes: entry.bytes, sha256: entry.sha256) else {
            throw DeltaError(.corrupt, "\(source): \(digest.mismatch(bytes: entry.bytes, sha256: entry.sha256)) (the base's)")
        }
        return (try DeltaReader.decode(gzip: data, maxBytes: inflateLimit, name: source), source)
    }
}
