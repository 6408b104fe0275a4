import Foundation
import SeedModel
import SeedStore

/// `seedbuild query`: opens stores under merged models and fetches one entity's objects, with
/// fetched properties resolved per object.
///
/// ```swift
/// var query = StoreQuery(entity: "Postcode", models: ["schemas/PostCodesModel.xcdatamodeld", "schemas/UserModel.xcdatamodeld"])
/// query.stores = [try StoreQuery.StoreArgument("build/seed/postcodes.sqlite:PostCodesConf:ro"), try StoreQuery.StoreArgument("user.sqlite")]
/// query.predicate = "postcode BEGINSWITH 'CT'"
/// query.fetchedProperties = ["ratings"]
/// let result = try query.run()
/// ```
public struct StoreQuery: Sendable {
    /// `PATH[:CONFIGURATION][:ro]`.
    public struct StoreArgument: Sendable, Equatable {
        public var path: String
        /// nil: the configuration in the store's metadata, else the model's only named configuration.
        public var configuration: String?
        public var isReadOnly: Bool

        public init(path: String, configuration: String? = nil, isReadOnly: Bool = false) {
            self.path = path
            self.configuration = configuration
            self.isReadOnly = isReadOnly
        }

        /// Parses `PATH[:CONFIGURATION][:ro]`.
        public init(_ argument: String) throws(IngestError) {
            var parts = argument.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            isReadOnly = parts.count > 1 && parts.last == "ro"
            if isReadOnly { parts.removeLast() }
            configuration = parts.count > 1 ? parts.removeLast() : nil
            path = parts.joined(separator: ":")
            guard !path.isEmpty, configuration != "" else {
                throw IngestError(
                    .badData, file: argument,
                    "--store takes PATH[:CONFIGURATION][:ro], such as build/seed/postcodes.sqlite:PostCodesConf:ro")
            }
        }
    }

    public var stores: [StoreArgument] = []
    /// Model files merged into one model (.xcdatamodeld, .xcdatamodel or JSON).
    public var models: [String]
    public var entity: String
    /// A predicate in `NSPredicate` format.
    public var predicate: String?
    /// Text for the predicate's placeholders in order, read as each asks (`%@` a string, `%d` an integer, `%K` a key path).
    public var arguments: [String] = []
    /// Values for the predicate's `$VARIABLES`, as text, by name.
    public var variables: [String: String] = [:]
    public var sortDescriptors: [FetchSortDescriptor] = []
    public var limit: Int?
    public var fetchedProperties: [String] = []

    public init(entity: String, models: [String]) {
        self.entity = entity
        self.models = models
    }

    /// Runs the query.
    /// - Throws: ``ModelError`` for a model that does not load or merge; ``StoreError``,
    ///   ``CoordinatorError`` for a store that cannot be added; ``FetchPredicateError``,
    ///   ``ContextError`` for a predicate, entity or fetched property that does not fit the model.
    public func run() throws -> QueryResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-query-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var urls: [URL] = []
        for store in stores {
            var url = URL(fileURLWithPath: store.path)
            if StoreFile.isGzip(url.path) {
                // An artifact is inflated to a temporary file; it is never changed.
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                let inflated = scratch.appendingPathComponent("\(UUID().uuidString).sqlite")
                do {
                    try GzipInflater.inflate(url.path, to: inflated.path)
                } catch {
                    throw StoreError(.notASeedStore, path: url.path, error.reason)
                }
                url = inflated
            }
            // A query reads; it never creates a store as a side effect.
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw StoreError(.notFound, path: url.path, "no such store; check the path (a query only opens existing stores)")
            }
            urls.append(url)
        }
        let model =
            try models.isEmpty ? storesOwnModel(urls) : Model.merged(models.map { path throws(ModelError) in try ModelLoader.load(path) })
        let coordinator = StoreCoordinator(model: model)
        for (store, url) in zip(stores, urls) {
            let configuration = try store.configuration ?? StoreMetadata.read(at: url).configuration ?? model.defaultStoreConfiguration
            let type = StoreType(contentsOf: url)
            // A query only reads: every store opens read-only (`:ro` is accepted and implied), so
            // a seed is never changed by looking at it.
            try coordinator.addStore(StoreDescription(type: type, url: url, configuration: configuration, isReadOnly: true))
        }
        guard let entity = model.entity(named: entity) else {
            throw ContextError(
                .unknownName,
                "the merged model has no entity \"\(self.entity)\"; it has \(model.entities.map(\.name).joined(separator: ", "))")
        }
        for name in fetchedProperties where entity.fetchedProperty(named: name) == nil {
            throw ContextError(
                .unknownName,
                "\(entity.name) has no fetched property \"\(name)\"; it has \(entity.fetchedProperties.map(\.name).joined(separator: ", ").isEmpty ? "none" : entity.fetchedProperties.map(\.name).joined(separator: ", "))"
            )
        }
        let context = ObjectContext(coordinator: coordinator)
        let request = FetchRequest(
            entity: entity.name, predicate: try parsedPredicate(), sortDescriptors: sortDescriptors, fetchLimit: limit)
        var rows: [QueryResult.Row] = []
        for object in try context.fetch(request) {
            var fetched: [String: [QueryResult.Row]] = [:]
            for name in fetchedProperties {
                fetched[name] = try object.fetchedObjects(name).map { QueryResult.Row(object: $0, fetched: [:]) }
            }
            rows.append(QueryResult.Row(object: object, fetched: fetched))
        }
        return QueryResult(entity: entity, fetchedProperties: fetchedProperties, rows: rows)
    }

    /// The model of the first store: the whole model a Core Data seed embeds, the one Core Data
    /// cached in its own store, or a plain store's configuration model.
    private func storesOwnModel(_ urls: [URL]) throws -> Model {
        guard let first = urls.first, StoreType(contentsOf: first) == .sqlite else {
            throw ModelError.invalid("give the model with --model: only an SQLite store carries its own", source: nil)
        }
        let queue = try StoreDatabase.openReadOnly(first.path)
        defer { try? queue.close() }
        return try queue.read { db in try StoreDatabase.embeddedModel(db, path: first.path).model }
    }
}

extension StoreType {
    /// The type a file's first bytes show: binary or XML property list, else SQLite.
    public init(contentsOf url: URL) {
        let head = (try? FileHandle(forReadingFrom: url).read(upToCount: 6)) ?? nil
        if head == Data("bplist".utf8) {
            self = .binary
        } else if head?.starts(with: Data("<?xml".utf8)) == true {
            self = .xml
        } else {
            self = .sqlite
        }
    }
}
