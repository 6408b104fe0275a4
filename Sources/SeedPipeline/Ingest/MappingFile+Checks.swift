import SeedModel

/// Nothing a mapping file or `--ignore-column` says is dropped without a word: an entry that cannot
/// apply is an error (or, for `--ignore-column`, which applies to every file, a warning).
extension MappingFile {
    /// Every entity the file names is one the build loads.
    /// - Parameter entities: the entities of the configuration being built that files feed.
    /// - Throws: ``IngestError`` naming the mapping file and the entity, with the nearest names.
    public func checkEntities(_ entities: [String], configuration: String) throws(IngestError) {
        for entity in Set(renames.keys).union(ignored.keys).sorted() where !entities.contains(entity) {
            let nearest = NameSuggestions.nearest(to: entity, among: entities)
            let hint = nearest.isEmpty ? "" : "did you mean \(nearest.joined(separator: " or "))? "
            throw IngestError(
                .badProjectFile, file: path ?? "the mapping", field: entity,
                "\"\(entity)\" is not an entity of configuration \(configuration) (\(entities.joined(separator: ", "))); \(hint)fix the entity's name in the mapping file"
            )
        }
    }

    /// Every column the file maps or skips for `entity` is in the header of the entity's file.
    /// - Throws: ``IngestError`` naming the CSV file, the column and the mapping file.
    public func checkColumns(of entity: String, header: [String], file: String) throws(IngestError) {
        let present = Set(header.map(ColumnMapping.normalize))
        let named = Set((renames[entity] ?? [:]).keys).union(ignored[entity] ?? [])
        for column in named.sorted() where !present.contains(ColumnMapping.normalize(column)) {
            let nearest = NameSuggestions.nearest(to: column, among: header, normalize: ColumnMapping.normalize)
            let hint = nearest.isEmpty ? "" : "did you mean \(nearest.map { "\"\($0)\"" }.joined(separator: " or "))? "
            throw IngestError(
                .badProjectFile, file: file, line: 1, field: column,
                "\(path ?? "the mapping file") names column \"\(column)\" for \(entity), but this file has no such column (\(header.joined(separator: ", "))); \(hint)fix the name in the mapping file"
            )
        }
    }

    /// `--ignore-column` names that matched no column of any file loaded (`headers`: file → header).
    public func unmatchedIgnoredColumns(headers: [String: [String]]) -> [String] {
        let present = Set(headers.values.joined().map(ColumnMapping.normalize))
        return ignoredEverywhere.sorted().filter { !present.contains(ColumnMapping.normalize($0)) }
    }
}
