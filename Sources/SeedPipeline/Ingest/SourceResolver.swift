import Foundation
import SeedModel

/// Decides which CSV file feeds which entity.
///
/// By file name: `postcodes.csv` → `Postcode`, `counties.csv` → `County` (case-insensitive, singular or
/// plural), overridden by explicit `Entity=path` pairs. Entities still without a file are looked for
/// beside the first CSV (`counties.csv` next to `postcodes.csv`).
public enum SourceResolver {
    /// Entity name → CSV path for every entity in `entities`.
    /// - Throws: ``IngestError`` (missing input) naming the entity and every path tried,
    ///   or (bad data) when a file matches no entity.
    public static func resolve(
        files: [String], explicit: [String: String], entities: [String]
    ) throws(IngestError) -> [String: String] {
        var sources: [String: String] = [:]
        for (entity, path) in explicit {
            guard entities.contains(entity) else {
                throw IngestError(
                    .badData, file: path,
                    "--source names entity \"\(entity)\", which the configuration does not hold (it has \(entities.joined(separator: ", ")))")
            }
            sources[entity] = path
        }
        // A path that is not there is that first, whatever its name would have matched.
        for file in files where !FileManager.default.fileExists(atPath: file) {
            throw IngestError(.missingInput, file: file, "no such file; check the path")
        }
        for file in files where !sources.values.contains(file) {
            let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            guard let entity = entities.first(where: { names(for: $0).contains(stem.lowercased()) }) else {
                throw IngestError(
                    .badData, file: file,
                    "the file name matches no entity of the configuration (\(entities.joined(separator: ", "))); name it after the entity or pass --source Entity=\(file)")
            }
            if let other = sources[entity], other != file {
                throw IngestError(.badData, file: file, "both \(other) and \(file) feed entity \(entity); give one")
            }
            sources[entity] = file
        }
        let folder = files.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
        for entity in entities where sources[entity] == nil {
            let tried = folder.map { folder in names(for: entity).map { folder.appendingPathComponent("\($0).csv").relativePath(from: FileManager.default.currentDirectoryPath) } } ?? []
            guard let found = tried.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw IngestError(
                    .missingInput, file: tried.first ?? entity,
                    "no CSV for entity \(entity); tried \(tried.joined(separator: ", ")). Put it there or pass --source \(entity)=PATH")
            }
            sources[entity] = found
        }
        for (entity, path) in sources where !FileManager.default.fileExists(atPath: path) {
            throw IngestError(.missingInput, file: path, "the CSV for entity \(entity) does not exist; check the path")
        }
        return sources
    }

    /// The lowercase file stems that name an entity: `county`, `countys`, `counties`, `countyes`.
    static func names(for entity: String) -> [String] {
        let lower = entity.lowercased()
        var names = [lower, lower + "s", lower + "es"]
        if lower.hasSuffix("y") { names.insert(String(lower.dropLast()) + "ies", at: 1) }
        return names
    }
}
