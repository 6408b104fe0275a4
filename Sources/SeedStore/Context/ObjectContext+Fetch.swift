import Foundation
import SeedModel

extension ObjectContext {
    /// The objects matching a request, from every store holding the entity (or the affected ones),
    /// merged in sort order. Objects deleted in this context are left out; registered objects come
    /// back as the same instances, with their unsaved changes.
    /// - Throws: ``ContextError`` for an unknown entity, ``CoordinatorError`` when no store holds it,
    ///   ``FetchPredicateError`` for a key path the entity does not have.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        if let parent {
            _ = try entity(named: request.entity)
            return try fetchThroughParent(parent, request)
        }
        let rows = try fetchRows(request)
        registered.reserveCapacity(registered.count + rows.count)
        var objects: [ManagedObject] = []
        objects.reserveCapacity(rows.count)
        rows.forEach { row, store, identifier in
            let object = register(row, store: store, storeIdentifier: identifier, entity: rows.entity)
            if !object.isDeleted { objects.append(object) }
        }
        return objects
    }

    /// The rows a request finds in the stores holding its entity (or the affected ones), merged in
    /// sort order, the window of offset and limit cut after merging. For a context without a parent.
    func fetchRows(_ request: FetchRequest) throws -> FetchedRows {
        let stores = try self.stores(for: request)
        let entity = try sharedEntity(named: request.entity)
        if stores.count == 1 {
            // One store: its rows as they come, without the merge below.
            let store = stores[0]
            let rows = try coordinator.serialized { try store.fetch(storeFetch(request)) }
            return FetchedRows(entity: entity, stores: stores, single: rows)
        }
        var rows: [(row: StoreRow, order: Int)] = []
        for (order, store) in stores.enumerated() {
            var fetch = storeFetch(request)
            // Each store gives its first offset + limit rows; the window is cut after merging.
            fetch.fetchOffset = 0
            fetch.fetchLimit = request.effectiveLimit.flatMap { limit in
                let (sum, overflow) = limit.addingReportingOverflow(max(0, request.fetchOffset))
                return overflow ? nil : sum
            }
            rows += try coordinator.serialized { try store.fetch(fetch) }.map { ($0, order) }
        }
        rows.sort { lhs, rhs in
            for (index, descriptor) in request.sortDescriptors.enumerated() {
                // A custom store may return fewer sort values than asked; treat missing ones as nil.
                let left = lhs.row.sortValue(at: index) ?? .null
                let right = rhs.row.sortValue(at: index) ?? .null
                if left != right { return descriptor.ascending ? left < right : right < left }
            }
            return lhs.order != rhs.order ? lhs.order < rhs.order : lhs.row.key < rhs.row.key
        }
        rows = Array(rows.dropFirst(max(0, request.fetchOffset)))
        if let limit = request.effectiveLimit { rows = Array(rows.prefix(limit)) }
        return FetchedRows(entity: entity, stores: stores, merged: rows)
    }

    /// How many objects a request would fetch.
    public func count(_ request: FetchRequest) throws -> Int {
        if let parent { return try parent.performAndWait { try parent.count(request) } }
        let stores = try self.stores(for: request)
        // Held across the stores, so the total is of one moment.
        coordinator.lock.lock()
        defer { coordinator.lock.unlock() }
        if stores.count == 1 { return try stores[0].count(storeFetch(request)) }
        var total = 0
        for store in stores {
            var fetch = storeFetch(request)
            fetch.fetchOffset = 0
            fetch.fetchLimit = nil
            total += try store.count(fetch)
        }
        total = max(0, total - max(0, request.fetchOffset))
        return request.effectiveLimit.map { min($0, total) } ?? total
    }

    private func storeFetch(_ request: FetchRequest) -> StoreFetch {
        StoreFetch(
            entity: request.entity, predicate: request.predicate, sortDescriptors: request.sortDescriptors,
            fetchLimit: request.effectiveLimit, fetchOffset: max(0, request.fetchOffset))
    }

    private func stores(for request: FetchRequest) throws -> [any PersistentStore] {
        _ = try entity(named: request.entity)
        if let predicate = request.predicate, let variable = predicate.variableNames.sorted().first {
            throw FetchPredicateError(
                format: predicate.description, position: nil, "$\(variable) has no value; call substituting(_:) before fetching")
        }
        let stores = coordinator.stores(for: request.entity, among: request.affectedStores)
        guard !stores.isEmpty else {
            let among = request.affectedStores == nil ? "" : " among the affected stores"
            throw CoordinatorError(.noStore, "no store\(among) holds \(request.entity); add a store whose configuration includes it")
        }
        return stores
    }

    /// The stored destinations of a relationship of a saved object.
    func relatedObjects(of object: ManagedObject, relationship: Relationship) throws -> [ManagedObject] {
        guard !object.isInserted else { return [] }
        if let parent { return try relatedThroughParent(parent, of: object, relationship: relationship) }
        guard let store = object.store else { return [] }
        coordinator.lock.lock()
        defer { coordinator.lock.unlock() }
        let keys: [StoreValue]
        if let key = object.committed[relationship.name] {
            keys = key.isNull ? [] : [key]
        } else {
            keys = try store.relatedKeys(entity: object.entity.name, key: object.objectID.key, relationship: relationship.name)
        }
        guard !keys.isEmpty else { return [] }
        let rows = try store.fetch(StoreFetch(entity: relationship.destination, keys: keys))
        let byKey = Dictionary(rows.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return keys.compactMap { byKey[$0] }.map { register($0, store: store) }
    }

    /// Runs a fetched property's predicate for one object against every store holding its entity.
    func evaluate(_ property: FetchedProperty, for object: ManagedObject) throws -> [ManagedObject] {
        let format = property.predicateFormat
        let predicate = try FetchPredicate(format)
        let bound = try predicate.substituting(format: format) { name, keyPath in
            switch name {
            case "FETCH_SOURCE":
                // The object itself matches only in its own store (`ANY owners == $FETCH_SOURCE`);
                // across stores, compare through a key attribute, such as $FETCH_SOURCE.postcode.
                if keyPath.isEmpty { return .object(object.objectID) }
                return .value(try object.value(atKeyPath: keyPath, format: format))
            case "FETCHED_PROPERTY":
                if keyPath == ["name"] { return .value(.text(property.name)) }
                if keyPath == ["entity"] || keyPath == ["entityName"] { return .value(.text(property.entity)) }
                if keyPath.count == 2, keyPath[0] == "userInfo" { return .value(StoreValue(property.userInfo[keyPath[1]])) }
                throw FetchPredicateError(format: format, position: nil, "$FETCHED_PROPERTY supports .name, .entity and .userInfo.KEY")
            default:
                throw FetchPredicateError(
                    format: format, position: nil,
                    "$\(name) has no value in a fetched property; only $FETCH_SOURCE and $FETCHED_PROPERTY are bound")
            }
        }
        do {
            return try fetch(FetchRequest(entity: property.entity, predicate: bound))
        } catch let error as CoordinatorError where error.kind == .noStore {
            throw CoordinatorError(
                .noStore,
                "fetched property \(object.entity.name).\(property.name): no store holds \(property.entity); add the store whose configuration includes it"
            )
        } catch let error as FetchPredicateError {
            throw FetchPredicateError(
                format: format, position: nil, "fetched property \(object.entity.name).\(property.name): \(error.message)")
        }
    }
}

extension ManagedObject {
    /// The value at a key path of attributes through to-one relationships (`county.name`); for a
    /// path ending in a relationship, the destination's key.
    /// - Throws: ``FetchPredicateError`` when a name is not an attribute or to-one relationship.
    public func value(forKeyPath keyPath: [String]) throws -> StoreValue {
        try value(atKeyPath: keyPath, format: keyPath.joined(separator: "."))
    }

    func value(atKeyPath keyPath: [String], format: String) throws -> StoreValue {
        var current: ManagedObject? = self
        for (offset, name) in keyPath.enumerated() {
            guard let object = current else { return .null }
            if offset == keyPath.count - 1, object.entity.attribute(named: name) != nil { return object[name] }
            guard object.entity.relationship(named: name).map({ !$0.isToMany }) == true else {
                throw FetchPredicateError(
                    format: format, position: nil,
                    "\(object.entity.name) has no attribute or to-one relationship \"\(name)\" (in $FETCH_SOURCE.\(keyPath.joined(separator: ".")))"
                )
            }
            current = try object.object(forRelationship: name)
        }
        return current.map { $0.objectID.key } ?? .null
    }
}

/// The rows a fetch found, each with its store, in the request's order: one store's as they came
/// (without copying them into another list), or several stores' merged.
struct FetchedRows {
    /// The entity fetched (rows of a tree may be of its sub-entities).
    let entity: SharedEntity
    private let stores: [any PersistentStore]
    private let identifiers: [String]
    private let single: [StoreRow]
    private let merged: [(row: StoreRow, order: Int)]

    init(entity: SharedEntity, stores: [any PersistentStore], single: [StoreRow] = [], merged: [(row: StoreRow, order: Int)] = []) {
        self.entity = entity
        self.stores = stores
        identifiers = stores.map(\.identifier)
        self.single = single
        self.merged = merged
    }

    var count: Int { stores.count == 1 ? single.count : merged.count }

    /// Calls `body` with each row, its store and the store's identifier, in order.
    func forEach(_ body: (StoreRow, any PersistentStore, String) throws -> Void) rethrows {
        if stores.count == 1 {
            let (store, identifier) = (stores[0], identifiers[0])
            for index in single.indices { try body(single[index], store, identifier) }
        } else {
            for index in merged.indices { try body(merged[index].row, stores[merged[index].order], identifiers[merged[index].order]) }
        }
    }
}

extension FetchRequest {
    /// The limit, with a negative one meaning none, as SQLite's `LIMIT` reads it.
    var effectiveLimit: Int? { fetchLimit.flatMap { $0 < 0 ? nil : $0 } }
}
