/// Indexes of a compiled model, given back in the shape the `.xcdatamodel` has them.
extension CompiledModelReader {
    /// Fetch indexes (`NSFetchIndexDescriptions`) and compound indexes (`NSCompoundIndexes`).
    ///
    /// Archives say some indexes twice, and those copies are left out: an attribute's `indexed`
    /// flag also as a fetch index named after it, a subentity's inherited indexes again, a fetch
    /// index also as a compound index (momc), a compound index also as a fetch index named
    /// `a_b` (Core Data's cache; the compound one is kept, named as the `.xcdatamodel` reader
    /// names it, `compound_a_b`).
    func readIndexes(_ object: ArchivedObject, in archive: KeyedArchive) -> [FetchIndex] {
        let lineage = [object] + ancestors(of: object, in: archive)
        let inherited = lineage.dropFirst().flatMap { fetchIndexes(of: $0, in: archive) }
        let flagged = Set(
            lineage.flatMap { rawProperties(of: $0, in: archive) }.filter { archive.flag($0["NSIsIndexed"]) }
                .compactMap { archive.string($0["NSPropertyName"]) })
        var indexes = fetchIndexes(of: object, in: archive).filter { index in
            let isFlag = index.elements.count == 1 && index.name == index.elements[0].property && flagged.contains(index.name)
            return !isFlag && !inherited.contains(index)
        }
        for item in archive.elements(object["NSCompoundIndexes"]) {
            let names = archive.elements(item).compactMap { propertyName($0, in: archive) }
            guard !names.isEmpty, !inherited.contains(where: { $0.elements.map(\.property) == names }) else { continue }
            let compound = FetchIndex.compound(names)
            if let position = indexes.firstIndex(where: { $0.elements.map(\.property) == names }) {
                if indexes[position].name == names.joined(separator: "_") { indexes[position] = compound }
            } else if !indexes.contains(compound) {
                indexes.append(compound)
            }
        }
        return indexes
    }

    /// The entity's `NSFetchIndexDescriptions`, as listed.
    private func fetchIndexes(of object: ArchivedObject, in archive: KeyedArchive) -> [FetchIndex] {
        archive.elements(object["NSFetchIndexDescriptions"]).compactMap { archive.object($0) }.map { index in
            let elements = archive.elements(index["NSIndexElements"]).compactMap { archive.object($0) }.compactMap { element in
                archive.string(element["NSPropertyName"]).map {
                    FetchIndex.Element(property: $0, isAscending: element["NSAscending"] == nil || archive.flag(element["NSAscending"]))
                }
            }
            return FetchIndex(name: archive.string(index["NSIndexName"]) ?? "", elements: elements)
        }
    }
}
