/// Reads a compiled Core Data model — the NSKeyedArchiver archive of an `NSManagedObjectModel`
/// that `momc` writes as a `.mom` and Core Data caches in a store's `Z_MODELCACHE` — into a
/// ``Model`` whose version hashes equal Apple's (`docs/model-json.md`, "Compiled models" and "Version hashes").
///
/// Reads both flag encodings: `_P` (bit 1 optional, bit 2 read-only, bit 3 transient, bit 10
/// ordered) and the oldest files' `NSIsOptional`/`NSIsTransient`/`NSIsOrdered` keys. Inherited
/// properties, which archives repeat in each subentity (as copies or as proxies), are kept on the
/// entity that declares them, as in a `.xcdatamodel`. Problems are collected, so one run reports
/// all of them.
struct CompiledModelReader {
    let source: ModelSource
    private(set) var diagnostics: [ModelDiagnostic] = []

    init(source: ModelSource) {
        self.source = source
    }

    /// Reads the archive's bytes.
    /// - Throws: ``ModelError`` naming the file: not an archive, truncated, or not a model.
    mutating func read(_ bytes: [UInt8], name: String) throws(ModelError) -> Model {
        let archive: KeyedArchive
        do throws(PropertyListFault) {
            archive = try KeyedArchive(BinaryPropertyList.parse(bytes))
        } catch {
            throw .invalid(
                "not a compiled Core Data model: \(error.reason); give a .mom from an app's .momd, or rebuild it with Xcode",
                source: source)
        }
        let root = archive.root
        guard root.isKind(of: "NSManagedObjectModel") else {
            throw .invalid(
                "the archive holds an \(root.className), not an NSManagedObjectModel; give a compiled Core Data model",
                source: source)
        }
        let entityObjects = archive.elements(root["NSEntities"]).compactMap { archive.object($0) }
        var entities: [Entity] = []
        for object in entityObjects {
            if let entity = readEntity(object, in: archive) { entities.append(entity) }
        }
        let model = Model(
            name: name,
            versionIdentifiers: archive.elements(root["NSVersionIdentifiers"]).compactMap { archive.string($0) }
                .filter { !$0.isEmpty }.sorted(),
            entities: entities, configurations: readConfigurations(root, in: archive),
            fetchRequestTemplates: readTemplates(root, in: archive), source: source)
        if diagnostics.contains(where: { $0.severity == .error }) { throw .invalid(diagnostics) }
        return model
    }

    mutating func problem(_ message: String, entity: String? = nil, property: String? = nil) {
        diagnostics.append(ModelDiagnostic(.error, message, source: source, entity: entity, property: property))
    }

    private mutating func readEntity(_ object: ArchivedObject, in archive: KeyedArchive) -> Entity? {
        guard let name = archive.string(object["NSEntityName"]), !name.isEmpty else {
            problem("an entity has no name (NSEntityName); the archive is damaged — rebuild the model with Xcode")
            return nil
        }
        var entity = Entity(
            name: name, representedClassName: archive.string(object["NSClassNameForEntity"]),
            parentEntity: archive.object(object["NSSuperentity"]).flatMap { archive.string($0["NSEntityName"]) },
            isAbstract: archive.flag(object["NSIsAbstract"]),
            renamingIdentifier: Self.renamingIdentifier(archive.string(object["NSRenamingIdentifier"]), name: name),
            versionHashModifier: archive.string(object["NSVersionHashModifier"]).flatMap { $0.isEmpty ? nil : $0 },
            userInfo: Self.userInfo(object["NSUserInfo"], in: archive), origin: source)
        entity.uniquenessConstraints = archive.elements(object["NSUniqueTuples"]).map { tuple in
            archive.elements(tuple).compactMap { propertyName($0, in: archive) }
        }.filter { !$0.isEmpty }
        entity.indexes = readIndexes(object, in: archive)
        let inherited = inheritedNames(of: object, in: archive)
        for item in archive.elements(object["NSProperties"]) {
            guard let property = archive.object(item), !property.isKind(of: "_NSPropertyDescriptionProxy"),
                let propertyName = archive.string(property["NSPropertyName"]), !inherited.contains(propertyName)
            else { continue }
            readProperty(property, named: propertyName, into: &entity, in: archive)
        }
        return entity
    }

    /// The names of every property of the entity's superentities: archives repeat them in the
    /// subentity, and the model keeps them on the entity that declares them.
    private func inheritedNames(of object: ArchivedObject, in archive: KeyedArchive) -> Set<String> {
        Set(
            ancestors(of: object, in: archive).flatMap { rawProperties(of: $0, in: archive) }.compactMap {
                archive.string($0["NSPropertyName"])
            })
    }

    /// The superentity, its superentity and so on (a loop in a damaged archive ends the list).
    func ancestors(of object: ArchivedObject, in archive: KeyedArchive) -> [ArchivedObject] {
        var chain: [ArchivedObject] = []
        var parent = archive.object(object["NSSuperentity"])
        while let entity = parent, chain.count < 1_000 {
            chain.append(entity)
            parent = archive.object(entity["NSSuperentity"])
        }
        return chain
    }

    /// An entity's archived properties as listed, proxies replaced by the property they stand for.
    func rawProperties(of entity: ArchivedObject, in archive: KeyedArchive) -> [ArchivedObject] {
        archive.elements(entity["NSProperties"]).compactMap { archive.object($0) }.map {
            archive.object($0["NSUnderlyingProperty"]) ?? $0
        }
    }

    /// A property named by a string or by its archived description.
    func propertyName(_ value: PropertyListValue, in archive: KeyedArchive) -> String? {
        archive.string(value) ?? archive.object(value).flatMap { archive.string($0["NSPropertyName"]) }
    }

    private func readConfigurations(_ root: ArchivedObject, in archive: KeyedArchive) -> [Configuration] {
        archive.entries(root["NSConfigurations"]).compactMap { key, value in
            guard let key else { return nil }
            let members = archive.elements(value).compactMap { item in
                archive.string(item) ?? archive.object(item).flatMap { archive.string($0["NSEntityName"]) }
            }
            return Configuration(name: key, entities: members)
        }
    }

    private mutating func readTemplates(_ root: ArchivedObject, in archive: KeyedArchive) -> [FetchRequestTemplate] {
        var templates: [FetchRequestTemplate] = []
        for (key, value) in archive.entries(root["NSFetchRequestTemplates"]) {
            guard let key, let request = archive.object(value) else { continue }
            let entity =
                archive.object(request["NSEntity"]).flatMap { archive.string($0["NSEntityName"]) }
                ?? archive.string(request["NSEntityName"]) ?? ""
            do throws(ArchivedPredicateFormat.Unsupported) {
                let predicate = try ArchivedPredicateFormat(archive: archive).predicate(request["NSPredicate"])
                templates.append(FetchRequestTemplate(name: key, entity: entity, predicate: predicate ?? ""))
            } catch {
                problem("the fetch request template \"\(key)\" has a predicate seedbuild cannot read (\(error.what)); simplify it in Xcode")
            }
        }
        return templates
    }

    /// momc writes the name itself when no renaming identifier is set; only a different one is a rename.
    static func renamingIdentifier(_ value: String?, name: String) -> String? {
        guard let value, !value.isEmpty, value != name else { return nil }
        return value
    }

    /// User info entries whose values are text (numbers and flags written as text too).
    static func userInfo(_ value: PropertyListValue?, in archive: KeyedArchive) -> [String: String] {
        var info: [String: String] = [:]
        for (key, item) in archive.entries(value) {
            guard let key else { continue }
            if let text = archive.string(item) {
                info[key] = text
            } else if let number = archive.integer(item) {
                info[key] = String(number)
            }
        }
        return info
    }
}
