import Foundation
import SeedModel
import SeedStore

extension Verifier {
    /// The configuration the verify step gives the empty user store: every user entity.
    static let userConfiguration = "seedbuild.verify.user"

    /// Step 4: opens the seed read-only beside a fresh, empty in-memory user store under the merged
    /// model, inserts one object of each user entity (its linking attributes set to the values a
    /// sample seed object holds), saves, then resolves every fetched property that crosses the two
    /// stores. A predicate that does not parse, names a missing key attribute, or finds nothing for a
    /// matching object fails the check.
    /// - Returns: what resolved (details) and what failed (problems).
    func checkCrossStore(seed: String, configuration: String, seedModel: Model, userModels: [Model]) -> (
        details: [String], problems: [String]
    ) {
        let seedEntities = Set((try? seedModel.restricted(to: configuration).entities.map(\.name)) ?? [])
        let userEntities = userModels.flatMap(\.entities).filter { !seedEntities.contains($0.name) }
        var merged: Model
        do {
            merged = try Model.merged([seedModel] + userModels)
        } catch {
            return ([], error.errors.map(\.description))
        }
        let crossing = merged.entities.flatMap { entity in entity.fetchedProperties.map { (entity, $0) } }.filter { owner, property in
            seedEntities.contains(owner.name) != seedEntities.contains(property.entity)
        }
        guard !userEntities.isEmpty || !crossing.isEmpty else { return ([], []) }
        merged.configurations.append(SeedModel.Configuration(name: Self.userConfiguration, entities: userEntities.map(\.name)))

        var details: [String] = []
        var problems: [String] = []
        do {
            let coordinator = StoreCoordinator(model: merged)
            try coordinator.addStore(
                StoreDescription(type: .sqlite, url: URL(fileURLWithPath: seed), configuration: configuration, isReadOnly: true))
            try coordinator.addStore(StoreDescription(type: .inMemory, configuration: Self.userConfiguration))
            let context = ObjectContext(coordinator: coordinator)
            var samples: [String: ManagedObject] = [:]
            for entity in seedEntities.sorted() {
                samples[entity] = try context.fetch(FetchRequest(entity: entity, fetchLimit: 1)).first
            }
            // Attributes a crossing fetched property compares with $FETCH_SOURCE: set them to the sample's values.
            var links: [String: [String: StoreValue]] = [:]
            for (owner, property) in crossing where seedEntities.contains(owner.name) {
                guard let sample = samples[owner.name], let predicate = try? FetchPredicate(property.predicateFormat) else { continue }
                for (key, sourcePath) in predicate.fetchSourceEqualities {
                    links[property.entity, default: [:]][key] = try? sample.value(forKeyPath: sourcePath)
                }
            }
            for entity in userEntities where !entity.isAbstract {
                let object = try context.insert(entity: entity.name)
                for attribute in entity.attributes where !attribute.isTransient && object[attribute.name].isNull && !attribute.isOptional {
                    object[attribute.name] = Self.sampleValue(for: attribute)
                }
                // A key the entity lacks is left to the resolution below, which names the fetched property.
                for (key, value) in links[entity.name] ?? [:] where entity.attribute(named: key) != nil { object[key] = value }
                samples[entity.name] = object
            }
            // A required to-one between user entities points at the one object inserted of its destination.
            for entity in userEntities where !entity.isAbstract {
                for relationship in entity.relationships
                where !relationship.isToMany && !relationship.isOptional && !relationship.isTransient {
                    if let destination = samples[relationship.destination], let object = samples[entity.name] {
                        try object.setObject(destination, forRelationship: relationship.name)
                    }
                }
            }
            do {
                try context.save()
                if !userEntities.isEmpty {
                    details.append(
                        "inserted one \(userEntities.map(\.name).joined(separator: ", ")) into an empty user store beside the seed")
                }
            } catch {
                problems.append("cannot save one object of each user entity beside the seed: \(error)")
                return (details, problems)
            }
            for (owner, property) in crossing {
                let name = "fetched property \(owner.name).\(property.name)"
                guard let source = samples[owner.name] else {
                    details.append("\(name): not resolved, \(owner.name) has no rows")
                    continue
                }
                do {
                    let found = try source.fetchedObjects(property.name)
                    // "Found nothing" proves a broken link only when the predicate is nothing but
                    // $FETCH_SOURCE equalities, all of which the inserted object was given.
                    let equalities = (try? FetchPredicate(property.predicateFormat)).map(\.isOnlyFetchSourceEqualities) ?? false
                    let linked = equalities && seedEntities.contains(owner.name) && !(links[property.entity] ?? [:]).isEmpty
                    if linked, found.isEmpty {
                        problems.append(
                            "\(name) found no \(property.entity) for \(owner.name) \(source.objectID.key.displayText), though one was inserted with the values its predicate \"\(property.predicate)\" compares; check the predicate and key attributes"
                        )
                    } else {
                        details.append(
                            "\(name) resolved: \(found.count) \(property.entity) for \(owner.name) \(source.objectID.key.displayText)")
                    }
                } catch {
                    problems.append("\(name) (\"\(property.predicate)\") cannot be resolved across the stores: \(error)")
                }
            }
        } catch {
            problems.append("cannot open the seed beside an empty user store under the merged model: \(error)")
        }
        return (details, problems)
    }

    /// A value that passes validation: the minimum when there is one, else a plain value of the type.
    static func sampleValue(for attribute: Attribute) -> StoreValue {
        let minimum = attribute.minValue.flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
        let maximum = attribute.maxValue.flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
        // Zero unless the range excludes it; then the bound nearest to zero.
        let number =
            minimum.map { Swift.max($0, 0) }.map { m in maximum.map { Swift.min(m, $0) } ?? m } ?? maximum.map { Swift.min($0, 0) } ?? 0
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            let range = attribute.type.integerRange ?? Int64.min...Int64.max
            return .integer(Int64(exactly: number.rounded(.up)).map { Swift.min(Swift.max($0, range.lowerBound), range.upperBound) } ?? 0)
        case .double, .float: return .real(number)
        case .decimal: return .text(String(number))
        case .boolean: return .integer(0)
        case .date: return StoreValue(Date(timeIntervalSince1970: 0))
        case .string:
            return .text(String(repeating: "x", count: Swift.min(Swift.max(1, Int(exactly: (minimum ?? 1).rounded(.up)) ?? 1), 10_000)))
        case .uuid: return .text(UUID().uuidString.lowercased())
        case .uri: return .text("https://example.invalid/")
        case .binary, .transformable: return .blob(Data())
        case .undefined, .objectID, .composite: return .null
        }
    }
}

extension FetchPredicate {
    /// `key == $FETCH_SOURCE.path` comparisons (either way round), as (key, path) pairs.
    var fetchSourceEqualities: [(String, [String])] {
        switch self {
        case .and(let parts), .or(let parts): return parts.flatMap(\.fetchSourceEqualities)
        case .comparison(.keyPath(let key), .equal, .variable("FETCH_SOURCE", let path), _) where key.count == 1 && !path.isEmpty:
            return [(key[0], path)]
        case .comparison(.variable("FETCH_SOURCE", let path), .equal, .keyPath(let key), _) where key.count == 1 && !path.isEmpty:
            return [(key[0], path)]
        default: return []
        }
    }
}

extension FetchPredicate {
    /// Whether the predicate is `key == $FETCH_SOURCE.path` comparisons joined by AND, and nothing else.
    var isOnlyFetchSourceEqualities: Bool {
        switch self {
        case .and(let parts): return parts.allSatisfy(\.isOnlyFetchSourceEqualities)
        case .comparison: return !fetchSourceEqualities.isEmpty
        default: return false
        }
    }
}
