import Foundation
import SeedModel
import SeedStore

/// The build's settings as a user gives them: command-line values over `seedbuild.json` over defaults.
public struct BuildOptions: Sendable {
    public var files: [String]
    public var model: String?
    public var configuration: String?
    public var outputDirectory: String?
    public var dataset: String?
    public var maxRejects: Int = 0
    /// `Entity=path` overrides, and `Entity.relationship=path` link files.
    public var sources: [String: String] = [:]
    public var mapping: String?
    public var dataVersion: Int64?
    /// Columns skipped in every file on purpose (`--ignore-column`); any other column that feeds nothing fails the build.
    public var ignoredColumns: [String] = []
    /// The longest CSV record accepted, in bytes; longer ones are rejected rows.
    public var maxRecordBytes = CSVReader.defaultMaxRecordBytes
    /// The app's user models, merged with the seed model to check fetched properties that cross stores.
    public var userModels: [String]?
    /// The store layout; nil takes `seedbuild.json`'s, else Core Data's.
    public var format: StoreLayout?
    /// The release the build follows (``BuildRequest/base``).
    public var base: String?
    /// K: deltas from the last K releases (``DeltaPolicy``); nil takes `seedbuild.json`'s, else 7.
    public var deltaCount: Int?
    /// The share of the artifact a delta must stay under; nil takes `seedbuild.json`'s, else 0.5.
    public var deltaMaxShare: Double?
    /// The key the release is signed with: its public key is trusted for the base (``BaseTrust``).
    public var signingKey: SigningKey?
    /// PEM public keys a base may be signed by besides the signing key's; nil takes `seedbuild.json`'s.
    public var trustedKeys: [String]?
    /// Follows an unsigned base although the build has keys (``BaseTrust/allowsUnsignedBase``).
    public var allowsUnsignedBase = false
    /// Lets the build through whatever its changes against the base (``BuildRequest/acceptChange``).
    public var acceptChange = false

    public static let defaultOutputDirectory = "build/seed"

    public init(files: [String]) {
        self.files = files
    }

    /// Resolves the settings into a build request: loads and validates the model, finds every source.
    /// - Returns: the request and the model's warnings.
    /// - Throws: ``ModelError`` or ``IngestError`` naming what is missing or wrong.
    public func resolve(project: ProjectFile?) throws -> (BuildRequest, [ModelDiagnostic]) {
        guard let modelPath = model ?? project?.model else {
            throw IngestError(
                .missingInput, file: ProjectFile.fileName,
                "no model: pass --model PATH or name one as \"model\" in \(ProjectFile.fileName)")
        }
        let model = try ModelLoader.load(modelPath)
        var warnings = try model.validated()
        // The project's configuration and user models belong to its model; another model brings its own.
        let projectModelApplies = self.model == nil || self.model == project?.model
        let projectConfiguration = projectModelApplies ? project?.configuration : nil
        let projectUserModels = projectModelApplies ? project?.userModels ?? [] : []
        let userModels = try (self.userModels ?? projectUserModels).map { path throws(ModelError) in
            let user = try ModelLoader.load(path)
            try user.validated()
            return user
        }
        if !userModels.isEmpty {
            // With the user models at hand, a fetched property's target must exist in the merged model.
            warnings = try Model.merged([model] + userModels).validated(requireFetchedPropertyTargets: true)
        }
        let configuration = self.configuration ?? projectConfiguration ?? model.defaultStoreConfiguration
        guard let members = model.configuration(named: configuration) else {
            throw ModelError.invalid(
                "no configuration named \"\(configuration)\"; the model has \(model.configurationNames.joined(separator: ", "))",
                source: model.source)
        }
        let files = self.files
        let explicit = (project?.sources ?? [:]).merging(sources) { _, flag in flag }
        // An abstract entity has no objects of its own, so no file feeds it.
        let concrete = members.entities.filter { !(model.entity(named: $0)?.isAbstract ?? false) }
        let links = SourceResolver.linkTargets(in: model, entities: members.entities)
        let resolved = try SourceResolver.resolve(files: files, explicit: explicit, entities: concrete, links: links, model: model)
        let mappingPath = mapping ?? project?.mapping
        var mappingFile = try mappingPath.map { path throws(IngestError) in try MappingFile.load(path) } ?? MappingFile()
        mappingFile.ignoredEverywhere.formUnion(ignoredColumns)
        try mappingFile.checkEntities(concrete, configuration: configuration)
        let firstFile = files.first ?? resolved.entities.values.sorted().first ?? model.name
        let dataset = self.dataset ?? project?.dataset ?? URL(fileURLWithPath: firstFile).deletingPathExtension().lastPathComponent
        guard !dataset.isEmpty, dataset.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }), !dataset.hasPrefix(".") else {
            throw IngestError(
                .badData, file: firstFile,
                "dataset name \"\(dataset)\" must be letters, digits, '.', '_' or '-' (it names the output files); pass --dataset NAME")
        }
        var request = BuildRequest(
            model: model, userModels: userModels, configuration: configuration, sources: resolved.entities, mapping: mappingFile,
            outputDirectory: outputDirectory ?? project?.out ?? Self.defaultOutputDirectory,
            dataset: dataset, maxRejects: maxRejects, dataVersion: dataVersion)
        request.links = resolved.links
        request.base = base
        request.deltas = DeltaPolicy(
            count: deltaCount ?? project?.deltas ?? DeltaPolicy.defaultCount,
            maxShare: deltaMaxShare ?? project?.deltaMaxShare ?? DeltaPolicy.defaultMaxShare)
        request.baseTrust = try baseTrust(project: project)
        request.maxRecordBytes = maxRecordBytes
        request.changeBudget = project?.changeBudget ?? ChangeBudget()
        request.acceptChange = acceptChange
        request.layout = format ?? project?.format ?? .coreData
        return (request, warnings)
    }

    /// The keys a base must be signed by: the signing key's own and the trusted keys'.
    private func baseTrust(project: ProjectFile?) throws(IngestError) -> BaseTrust {
        let trusted = try (trustedKeys ?? project?.trustedKeys ?? []).map { path throws(IngestError) in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw IngestError(
                    .missingInput, file: path, "cannot read the trusted key; give the path of a .pub file seedbuild keygen wrote")
            }
            do {
                return try TrustedKey(pem: text, path: path)
            } catch {
                throw IngestError(
                    .badProjectFile, file: path, "not an Ed25519 public key in PEM form; give the .pub file seedbuild keygen wrote")
            }
        }
        var trust = BaseTrust(signingKey: signingKey, trusted: trusted)
        trust.allowsUnsignedBase = allowsUnsignedBase
        return trust
    }
}
