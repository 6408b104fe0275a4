import Foundation
import SeedStore

/// `seedbuild.json`: the project's defaults, so the nightly job needs no flags.
///
/// ```json
/// {
///   "model": "schemas/PostCodesModel.xcdatamodeld",
///   "userModels": ["schemas/UserModel.xcdatamodeld"],
///   "configuration": "PostCodesConf",
///   "dataset": "postcodes",
///   "sources": { "County": "seeds/counties.csv" },
///   "mapping": "seeds/mapping.json",
///   "out": "build/seed",
///   "publish": "dist",
///   "deltas": 7,
///   "deltaMaxShare": 0.5,
///   "trustedKeys": ["keys/seedbuild-signing-2025.pub"],
///   "changeBudget": {"removed": 0.05, "changed": 0.25, "entities": {"Postcode": {"removed": 0.5}}}
/// }
/// ```
/// Every key is optional; paths are relative to the file's folder; command-line flags override them.
public struct ProjectFile: Sendable, Equatable {
    public static let fileName = "seedbuild.json"

    public var model: String?
    public var userModels: [String] = []
    public var configuration: String?
    public var dataset: String?
    /// Entity name → CSV path.
    public var sources: [String: String] = [:]
    public var mapping: String?
    public var out: String?
    public var publish: String?
    /// The store layout: `coredata` (the default) or `plain`.
    public var format: StoreLayout?
    /// K: deltas from the last K releases, 0 for none (``DeltaPolicy``).
    public var deltas: Int?
    /// The share of the artifact a delta must stay under, more than 0 and at most 1.
    public var deltaMaxShare: Double?
    /// Public keys (PEM files) besides the signing key's own that a base release may be signed by
    /// (``BaseTrust``): the previous key while keys are rotated.
    public var trustedKeys: [String] = []
    /// How much of each entity a build following a base may remove or change (``ChangeBudget``).
    public var changeBudget: ChangeBudget?

    public init() {}

    /// Reads `seedbuild.json` from a folder; nil when there is none.
    /// - Throws: ``IngestError`` naming the file and the key when it is malformed.
    public static func load(inDirectory directory: String) throws(IngestError) -> ProjectFile? {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(fileName).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try load(path)
    }

    public static func load(_ path: String) throws(IngestError) -> ProjectFile {
        func fail(_ message: String) -> IngestError {
            IngestError(.badProjectFile, file: path, message)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw IngestError(.missingInput, file: path, "cannot read the project file")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw fail("not a JSON object; see the example in the README")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        func resolve(_ value: String) -> String {
            value.hasPrefix("/")
                ? value
                : base.appendingPathComponent(value).standardizedFileURL.relativePath(from: FileManager.default.currentDirectoryPath)
        }
        // JSONSerialization gives true and false as NSNumbers too (of type "c"), which `as? Int` takes.
        func isBoolean(_ value: Any) -> Bool {
            (value as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false
        }
        func string(_ key: String) throws(IngestError) -> String? {
            guard let value = object[key] else { return nil }
            guard let string = value as? String else { throw fail("\"\(key)\" must be a string") }
            return string
        }
        let allowed: Set<String> = [
            "model", "userModels", "configuration", "dataset", "sources", "mapping", "out", "publish", "format", "deltas", "deltaMaxShare",
            "trustedKeys", "changeBudget",
        ]
        if let unknown = object.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw fail("unknown key \"\(unknown)\"; allowed keys are \(allowed.sorted().joined(separator: ", "))")
        }
        var project = ProjectFile()
        project.model = try string("model").map(resolve)
        project.configuration = try string("configuration")
        project.dataset = try string("dataset")
        if let format = try string("format") {
            guard let layout = StoreLayout(rawValue: format) else {
                throw fail(
                    "\"format\" must be \(StoreLayout.allCases.map { "\"\($0.name)\"" }.joined(separator: " or ")), not \"\(format)\"")
            }
            project.format = layout
        }
        project.mapping = try string("mapping").map(resolve)
        project.out = try string("out").map(resolve)
        project.publish = try string("publish").map { $0.contains("://") ? $0 : resolve($0) }
        if let value = object["deltas"] {
            guard let count = value as? Int, !isBoolean(value), count >= 0 else {
                throw fail("\"deltas\" must be a whole number, 0 or more (0: no deltas)")
            }
            project.deltas = count
        }
        if let value = object["deltaMaxShare"] {
            guard let share = (value as? NSNumber)?.doubleValue, !isBoolean(value), share > 0, share <= 1 else {
                throw fail("\"deltaMaxShare\" must be a number more than 0 and at most 1, such as 0.5 (50% of the artifact)")
            }
            project.deltaMaxShare = share
        }
        if let value = object["trustedKeys"] {
            guard let keys = value as? [String] else {
                throw fail("\"trustedKeys\" must be a list of paths to PEM public keys (.pub files from seedbuild keygen)")
            }
            project.trustedKeys = keys.map(resolve)
        }
        if let value = object["changeBudget"] {
            do {
                project.changeBudget = try ChangeBudget.parse(value)
            } catch {
                throw fail(error.message)
            }
        }
        if let value = object["userModels"] {
            guard let models = value as? [String] else { throw fail("\"userModels\" must be a list of paths") }
            project.userModels = models.map(resolve)
        }
        if let value = object["sources"] {
            guard let sources = value as? [String: String] else {
                throw fail("\"sources\" must map entity names to CSV paths")
            }
            project.sources = sources.mapValues(resolve)
        }
        return project
    }
}
