import Foundation
import SeedModel

/// Decides which CSV file feeds which entity.
///
/// By file name: `postcodes.csv` → `Postcode`, `counties.csv` → `County` (case-insensitive, singular or
/// plural), overridden by explicit `Entity=path` pairs. Entities still without a file are looked for
/// beside the first CSV (`counties.csv` next to `postcodes.csv`).
public enum SourceResolver {
    /// Which file feeds which entity, and which link file which many-to-many relationship.
    public struct Resolved: Sendable {
        /// Entity name → CSV path, for every entity.
        public var entities: [String: String]
        /// `Entity.relationship` → link file, for the relationships that have one (``LinkTarget``).
        public var links: [String: String]
    }

    /// Entity name → CSV path for every entity in `entities`, and the link files of `links`.
    /// - Parameters:
    ///   - explicit: `Entity=path` pairs, and `Entity.relationship=path` for link files.
    ///   - links: the relationships a link file can feed (``linkTargets(in:entities:)``); `model` with them.
    /// - Throws: ``IngestError`` (missing input) naming the entity and every path tried,
    ///   or (bad data) when a file matches no entity and no link.
    public static func resolve(
        files: [String], explicit: [String: String], entities: [String], links targets: [LinkTarget] = [], model: Model? = nil
    ) throws(IngestError) -> Resolved {
        var sources: [String: String] = [:]
        for (entity, path) in explicit where !entity.contains(".") {
            guard entities.contains(entity) else {
                throw IngestError(
                    .badData, file: path,
                    "--source names entity \"\(entity)\", which the configuration does not hold (it has \(entities.joined(separator: ", ")))"
                )
            }
            sources[entity] = path
        }
        // A path that is not there is that first, whatever its name would have matched.
        for file in files where !FileManager.default.fileExists(atPath: file) {
            throw IngestError(.missingInput, file: file, "no such file; check the path")
        }
        var linkFiles: [String] = []
        for file in files where !sources.values.contains(file) {
            let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            guard let entity = entities.first(where: { names(for: $0).contains(stem.lowercased()) }) else {
                linkFiles.append(file)
                continue
            }
            if let other = sources[entity], other != file {
                throw IngestError(.badData, file: file, "both \(other) and \(file) feed entity \(entity); give one")
            }
            sources[entity] = file
        }
        let folder = files.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
        for entity in entities where sources[entity] == nil {
            let tried =
                folder.map { folder in
                    names(for: entity).map {
                        folder.appendingPathComponent("\($0).csv").relativePath(from: FileManager.default.currentDirectoryPath)
                    }
                } ?? []
            guard let found = tried.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw IngestError(
                    .missingInput, file: tried.first ?? entity,
                    "no CSV for entity \(entity); tried \(tried.joined(separator: ", ")). Put it there or pass --source \(entity)=PATH")
            }
            sources[entity] = found
        }
        let links = try resolveLinks(
            files: linkFiles, explicit: explicit.filter { $0.key.contains(".") }, targets: targets, entityNames: entities,
            model: model ?? Model(name: "", entities: []), folder: folder)
        for (name, path) in sources.merging(links, uniquingKeysWith: { first, _ in first })
        where !FileManager.default.fileExists(atPath: path) {
            throw IngestError(
                .missingInput, file: path,
                "the CSV for \(name.contains(".") ? "the links of" : "entity") \(name) does not exist; check the path")
        }
        return Resolved(entities: sources, links: links)
    }

    /// The lowercase file stems that name an entity: `county`, `countys`, `counties`, `countyes`.
    static func names(for entity: String) -> [String] {
        let lower = entity.lowercased()
        var names = [lower, lower + "s", lower + "es"]
        if lower.hasSuffix("y") { names.insert(String(lower.dropLast()) + "ies", at: 1) }
        return names
    }
}
