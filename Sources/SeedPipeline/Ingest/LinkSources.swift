import Foundation
import SeedModel

/// The relationships a **link file** feeds: a many-to-many (self-referential too) or a to-many
/// without inverse, whose links no column of an entity's own file can hold.
///
/// A link file has one row per link: the owner's key (`book_uuid`) and the destination's key
/// (`genres_name`), as `docs/ingest.md` states. It is named `--source Book.genres=FILE`,
/// `"sources": {"Book.genres": FILE}` in `seedbuild.json`, or found by name: `book_genres.csv` or
/// `books_genres.csv` given on the command line or beside the first CSV. One file feeds a pair of
/// inverse relationships; it may be named for either side.
public struct LinkTarget: Sendable, Hashable {
    /// The side the file is named for: its rows give this entity's key first.
    public var entity: String
    public var relationship: String
    public var destination: String
    /// The inverse relationship on the destination, if any.
    public var inverse: String?

    /// `Book.genres`: how `--source` and `seedbuild.json` name it.
    public var name: String { "\(entity).\(relationship)" }

    /// The same pair, named for the other side (nil without an inverse).
    var reversed: LinkTarget? {
        inverse.map { LinkTarget(entity: destination, relationship: $0, destination: entity, inverse: relationship) }
    }

    /// Whether `other` is this pair, named for either side.
    func isPair(of other: LinkTarget) -> Bool { self == other || reversed == other }

    /// The lowercase file stems, normalized, that name this side: `bookgenres`, `booksgenres`.
    var fileStems: [String] {
        SourceResolver.names(for: entity).map { ColumnMapping.normalize($0 + relationship) }
    }
}

extension SourceResolver {
    /// Every relationship of the configuration that a link file can feed, each named for both
    /// sides when it has an inverse (both sides must be in the configuration).
    /// - Parameter entities: the configuration's entities, abstract ones included.
    public static func linkTargets(in model: Model, entities: [String]) -> [LinkTarget] {
        var targets: [LinkTarget] = []
        for name in entities {
            guard let entity = model.entity(named: name) else { continue }
            for relationship in model.allRelationships(of: entity) where relationship.isToMany && !relationship.isTransient {
                guard entities.contains(relationship.destination) else { continue }
                let inverse = relationship.inverse.flatMap { inverse in
                    model.entity(named: relationship.destination).flatMap { model.allRelationships(of: $0).first { $0.name == inverse } }
                }
                // A to-many whose inverse is to-one is fed by the to-one's column in the destination's file;
                // an ordered one may be fed by a link file too (the plain layout keeps it in a join table).
                if let inverse, !inverse.isToMany, !relationship.isOrdered { continue }
                targets.append(
                    LinkTarget(entity: name, relationship: relationship.name, destination: relationship.destination, inverse: inverse?.name)
                )
            }
        }
        return targets
    }

    /// `Entity.relationship` → link file, from explicit `Entity.relationship=path` pairs, files given
    /// whose names name a link, and files found beside the first CSV. One file per pair.
    /// - Parameters:
    ///   - files: the CSV files given that named no entity.
    ///   - explicit: the pairs whose key has a dot.
    ///   - folder: where to look for the links no file was given for.
    /// - Throws: ``IngestError``: an explicit name that is no such relationship, or that no link file
    ///   can feed (naming how it is fed); a file that names nothing; two files for one pair.
    static func resolveLinks(
        files: [String], explicit: [String: String], targets: [LinkTarget], entityNames: [String], model: Model, folder: URL?
    ) throws(IngestError) -> [String: String] {
        var links: [LinkTarget: String] = [:]
        func add(_ target: LinkTarget, _ path: String) throws(IngestError) {
            if let (other, existing) = links.first(where: { $0.key.isPair(of: target) }), existing != path {
                throw IngestError(
                    .badData, file: path,
                    "both \(existing) (\(other.name)) and \(path) (\(target.name)) feed the links of \(target.name)\(target.inverse.map { " ↔ \(target.destination).\($0)" } ?? ""); give one"
                )
            }
            links[target] = path
        }
        for (name, path) in explicit.sorted(by: { $0.key < $1.key }) {
            try add(try target(named: name, in: targets, model: model, path: path), path)
        }
        for file in files {
            let stem = ColumnMapping.normalize(URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent)
            guard let target = targets.first(where: { $0.fileStems.contains(stem) }) else {
                throw IngestError(
                    .badData, file: file,
                    "the file name matches no entity of the configuration (\(entityNames.joined(separator: ", ")))\(targets.isEmpty ? "" : " and no relationship a link file feeds (\(targets.map(\.name).joined(separator: ", ")))"); name it after the entity, or Entity_relationship for a link file, or pass --source Entity=\(file)"
                )
            }
            try add(target, file)
        }
        if let folder {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for target in targets where !links.keys.contains(where: { $0.isPair(of: target) }) {
                // Files named for either side of the pair: two of them is a mistake, not a choice to make.
                for side in [target] + (target.reversed.map { [$0] } ?? []) {
                    for found in names.sorted()
                    where found.hasSuffix(".csv") && side.fileStems.contains(ColumnMapping.normalize(String(found.dropLast(4)))) {
                        try add(side, folder.appendingPathComponent(found).relativePath(from: FileManager.default.currentDirectoryPath))
                    }
                }
            }
        }
        return Dictionary(uniqueKeysWithValues: links.map { ($0.key.name, $0.value) })
    }

    /// The link target `Entity.relationship` names, or an error saying what it is and how it is fed.
    private static func target(named name: String, in targets: [LinkTarget], model: Model, path: String) throws(IngestError) -> LinkTarget {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        if let target = targets.first(where: { $0.entity == parts[0] && $0.relationship == parts.last }) { return target }
        guard let entity = model.entity(named: parts[0]) else {
            throw IngestError(
                .badData, file: path,
                "--source names \(name), but the model has no entity \(parts[0]); links are named Entity.relationship (\(targets.map(\.name).joined(separator: ", ")))"
            )
        }
        guard let relationship = model.allRelationships(of: entity).first(where: { $0.name == parts.last }) else {
            let near = NameSuggestions.nearest(
                to: parts.last ?? "", among: model.allRelationships(of: entity).map(\.name), normalize: ColumnMapping.normalize)
            throw IngestError(
                .badData, file: path,
                "--source names \(name), but \(entity.name) has no relationship \(parts.last ?? "")\(near.isEmpty ? "" : "; did you mean \(near.joined(separator: " or "))?")"
            )
        }
        let why =
            relationship.isTransient
            ? "it is transient, so never stored"
            : !relationship.isToMany
                ? "it is to-one: a column \(relationship.name) (or \(relationship.name)_<key>) in \(entity.name)'s own file feeds it"
                : "its inverse is to-one: a column \(relationship.inverse ?? "") in \(relationship.destination)'s file feeds it"
        throw IngestError(
            .badData, file: path, "--source names \(name), which no link file feeds: \(why); or its destination is not in the configuration"
        )
    }
}
