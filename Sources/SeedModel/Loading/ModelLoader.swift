import Foundation

/// Loads models from Xcode's `.xcdatamodeld` bundles, `.xcdatamodel` folders, JSON files, and
/// compiled models: an app's `.momd` folder or one `.mom` (`ModelLoader+Compiled.swift`).
///
/// ```swift
/// let model = try ModelLoader.load("schemas/PostCodesModel.xcdatamodeld")   // the current version
/// let all = try ModelLoader.loadAllVersions("schemas/PostCodesModel.xcdatamodeld")
/// let shipped = try ModelLoader.load("App.app/PostCodesModel.momd")        // its current version
/// ```
/// Loading only reads; call ``Model/validate()`` to check the model.
public enum ModelLoader {
    /// Loads a bundle's current version, one version folder, an unversioned `.xcdatamodel`, a JSON
    /// model, a `.momd`'s current version or one `.mom`.
    /// - Throws: ``ModelError`` naming the path; ``ModelError/isNotFound`` when nothing is there.
    public static func load(_ path: String) throws(ModelError) -> Model {
        switch try kind(of: path) {
        case .compiled(let bundle):
            return try loadCompiled(path, bundle: bundle, displayPath: path)
        case .compiledBundle:
            return try loadCompiled(try currentCompiledVersionPath(ofBundle: path), bundle: path, displayPath: path)
        case .json:
            return try loadJSON(path)
        case .version(let bundle):
            return try loadVersion(path, bundle: bundle, displayPath: path)
        case .bundle:
            let (current, warning) = try currentVersionPath(ofBundle: path)
            var model = try loadVersion(current, bundle: path, displayPath: path)
            if let warning { model.loadWarnings.append(warning) }
            return model
        }
    }

    /// Reads a model from its JSON form in memory (as a store's `seed_model` table holds it).
    public static func load(json data: Data, source: ModelSource) throws(ModelError) -> Model {
        try JSONModelReader(source: source).read(data)
    }

    /// Loads every version in a bundle, in version order (`Model`, `Model 2`, … `Model 10`).
    /// A `.momd` gives every `.mom` in it, in the same order. A version folder, `.mom` or JSON
    /// model gives just itself.
    public static func loadAllVersions(_ path: String) throws(ModelError) -> [Model] {
        let kind = try kind(of: path)
        if case .compiledBundle = kind { return try loadAllCompiledVersions(path) }
        guard case .bundle = kind else { return [try load(path)] }
        return try versionPaths(ofBundle: path).map { version throws(ModelError) in
            try loadVersion(version, bundle: path, displayPath: path)
        }
    }

    /// The version folder names in a bundle, in version order.
    public static func versionNames(ofBundle path: String) throws(ModelError) -> [String] {
        try versionPaths(ofBundle: path).map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
    }

    private enum Kind {
        case json
        case bundle
        case version(bundle: String?)
        case compiled(bundle: String?)
        case compiledBundle
    }

    private static func kind(of path: String) throws(ModelError) -> Kind {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .notFound(path)
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let ext = url.pathExtension.lowercased()
        if !isDirectory.boolValue {
            if ext == "json" { return .json }
            if ext == "mom" {
                let parent = url.deletingLastPathComponent()
                return .compiled(bundle: parent.pathExtension == "momd" ? parent.path : nil)
            }
            if url.lastPathComponent == "contents", url.deletingLastPathComponent().pathExtension == "xcdatamodel" {
                return .version(bundle: nil)
            }
            throw .invalid(
                "not a model: expected an .xcdatamodeld bundle, an .xcdatamodel folder, a .json model, a .momd folder or a .mom file",
                source: ModelSource(file: path))
        }
        switch ext {
        case "xcdatamodeld":
            return .bundle
        case "momd":
            return .compiledBundle
        case "xcdatamodel":
            let parent = url.deletingLastPathComponent()
            return .version(bundle: parent.pathExtension == "xcdatamodeld" ? parent.path : nil)
        default:
            throw .invalid(
                "a folder that is neither an .xcdatamodeld bundle, an .xcdatamodel version nor a compiled .momd",
                source: ModelSource(file: path))
        }
    }

    private static func loadJSON(_ path: String) throws(ModelError) -> Model {
        let source = ModelSource(file: path)
        return try JSONModelReader(source: source).read(try readFile(path, source: source))
    }

    private static func loadVersion(_ path: String, bundle: String?, displayPath: String) throws(ModelError) -> Model {
        var url = URL(fileURLWithPath: path)
        if url.lastPathComponent == "contents" { url.deleteLastPathComponent() }
        let versionName = url.deletingPathExtension().lastPathComponent
        let modelName = bundle.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? versionName
        let source = ModelSource(file: displayPath, version: bundle == nil ? nil : versionName)
        let contents = url.appendingPathComponent("contents").path
        guard FileManager.default.fileExists(atPath: contents) else {
            let legacy = FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path)
            throw .invalid(
                legacy
                    ? "the version folder holds only the binary \"elements\" file of Xcode 3 (before Xcode 4), which cannot be read; open the model in a current Xcode and save it, or give the compiled .mom"
                    : "the version folder has no contents file; re-save the model in Xcode",
                source: source)
        }
        let data = try readFile(contents, source: source)
        // FoundationXML crashes on some malformed input instead of throwing: check the bytes first.
        if let problem = ModelXMLCheck.problem(in: [UInt8](data)) {
            throw .invalid("\(contents): \(problem); re-save the model in Xcode", source: source)
        }
        return try XcodeModelParser(source: source).parse(data, name: modelName)
    }

    private static func readFile(_ path: String, source: ModelSource) throws(ModelError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .invalid("cannot read \(path): \(error.localizedDescription)", source: source)
        }
    }

    private static func versionPaths(ofBundle path: String) throws(ModelError) -> [String] {
        let versions = try versionFiles(in: path, suffix: ".xcdatamodel")
        guard !versions.isEmpty else {
            throw .invalid("the bundle holds no .xcdatamodel version", source: ModelSource(file: path))
        }
        return versions
    }

    /// The paths of the files in a bundle whose names end in `suffix`, in version order: stems
    /// compared so "Model" sorts before "Model 2" and "Model 2" before "Model 10".
    static func versionFiles(in path: String, suffix: String) throws(ModelError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .invalid("cannot list the bundle: \(error.localizedDescription)", source: ModelSource(file: path))
        }
        return names.filter { $0.hasSuffix(suffix) }
            .sorted { $0.dropLast(suffix.count).compare($1.dropLast(suffix.count), options: .numeric) == .orderedAscending }
            .map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
    }

    /// The version `.xccurrentversion` names; a bundle with one version needs no such file. A
    /// marker that names no version is what Xcode builds anyway, with the latest version: so is
    /// it taken here, with a warning.
    private static func currentVersionPath(ofBundle path: String) throws(ModelError) -> (String, ModelDiagnostic?) {
        let source = ModelSource(file: path)
        let bundle = URL(fileURLWithPath: path)
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        guard let data = try? Data(contentsOf: marker) else {
            let versions = try versionPaths(ofBundle: path)
            guard versions.count == 1 else {
                throw .invalid(
                    "the bundle has \(versions.count) versions and no .xccurrentversion; "
                        + "set the current version in Xcode or give one version folder", source: source)
            }
            return (versions[0], nil)
        }
        let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        guard let name = plist?["_XCCurrentVersionName"] as? String, !name.isEmpty else {
            let latest = try versionPaths(ofBundle: path).last!
            let latestName = URL(fileURLWithPath: latest).lastPathComponent
            return (
                latest,
                ModelDiagnostic(
                    .warning,
                    ".xccurrentversion names no current version; using the latest, \(latestName), as Xcode does. Set the current version in Xcode to be sure",
                    source: source)
            )
        }
        let version = bundle.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: version) else {
            throw .invalid(".xccurrentversion names \"\(name)\", which is not in the bundle", source: source)
        }
        return (version, nil)
    }
}
