import Foundation

/// Compiled models: a `.mom` (what `momc` makes of one `.xcdatamodel`) and a `.momd` folder (one
/// `.mom` per version and a `VersionInfo.plist` naming the current one), as an app bundle ships
/// them. What is read and what is not: `docs/model-json.md`, "Compiled models".
extension ModelLoader {
    /// Reads a compiled model from its archive's bytes: a `.mom` file's, or the inflated
    /// `Z_MODELCACHE` of a Core Data store.
    ///
    /// ```swift
    /// let model = try ModelLoader.load(compiledModel: bytes, name: "Books", source: ModelSource(file: "Books.mom"))
    /// ```
    /// - Parameters:
    ///   - name: the model's name (the file's stem, or the `.momd`'s).
    ///   - source: where the bytes came from, for error messages.
    /// - Throws: ``ModelError`` naming the source: not an NSKeyedArchiver archive, truncated or
    ///   corrupt, not a managed object model, or a property seedbuild cannot read.
    public static func load(compiledModel data: Data, name: String, source: ModelSource) throws(ModelError) -> Model {
        var reader = CompiledModelReader(source: source)
        return try reader.read([UInt8](data), name: name)
    }

    /// The `.mom` names in a `.momd`, in version order (`Model`, `Model 2`, … `Model 10`).
    public static func compiledVersionNames(ofBundle path: String) throws(ModelError) -> [String] {
        try compiledVersionPaths(ofBundle: path).map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
    }

    static func loadCompiled(_ path: String, bundle: String?, displayPath: String) throws(ModelError) -> Model {
        let versionName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let modelName = bundle.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? versionName
        let source = ModelSource(file: displayPath, version: bundle == nil ? nil : versionName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalid("cannot read \(path); check that it is a readable file", source: source)
        }
        return try load(compiledModel: data, name: modelName, source: source)
    }

    static func loadAllCompiledVersions(_ path: String) throws(ModelError) -> [Model] {
        try compiledVersionPaths(ofBundle: path).map { version throws(ModelError) in
            try loadCompiled(version, bundle: path, displayPath: path)
        }
    }

    private static func compiledVersionPaths(ofBundle path: String) throws(ModelError) -> [String] {
        let versions = try versionFiles(in: path, suffix: ".mom")
        guard !versions.isEmpty else {
            let optimized = !(try versionFiles(in: path, suffix: ".omo")).isEmpty
            throw .invalid(
                optimized
                    ? "the .momd holds only optimized .omo models, which seedbuild cannot read; give the .xcdatamodeld or a .momd with .mom files"
                    : "the .momd holds no .mom model", source: ModelSource(file: path))
        }
        return versions
    }

    /// The version `VersionInfo.plist` names (`NSManagedObjectModel_CurrentVersionName`); a
    /// `.momd` with one `.mom` needs no name (momc leaves it out of unversioned models).
    static func currentCompiledVersionPath(ofBundle path: String) throws(ModelError) -> String {
        let source = ModelSource(file: path)
        let bundle = URL(fileURLWithPath: path)
        let info = try? Data(contentsOf: bundle.appendingPathComponent("VersionInfo.plist"))
        let plist = info.flatMap { try? PropertyListSerialization.propertyList(from: $0, format: nil) as? [String: Any] }
        guard let name = plist?["NSManagedObjectModel_CurrentVersionName"] as? String, !name.isEmpty else {
            let versions = try compiledVersionPaths(ofBundle: path)
            guard versions.count == 1 else {
                throw .invalid(
                    "the .momd has \(versions.count) versions and no VersionInfo.plist naming the current one "
                        + "(NSManagedObjectModel_CurrentVersionName); give one .mom, or the .xcdatamodeld it was built from",
                    source: source)
            }
            return versions[0]
        }
        let version = bundle.appendingPathComponent(name + ".mom").path
        guard FileManager.default.fileExists(atPath: version) else {
            throw .invalid("VersionInfo.plist names \"\(name)\" as current, but the .momd has no \(name).mom", source: source)
        }
        return version
    }
}
