import Foundation
import SeedInstall
import SeedModel
import SeedPipeline

/// The repository's sample seed (`seeds/postcodes.csv`, 311 postcodes in 12 counties), built as the
/// nightly job builds it: for the sample seed model merged with the sample user model.
public enum SampleSeed {
    /// The seed model bundle; its current version is 2.
    public static let seedModel = "schemas/PostCodesModel.xcdatamodeld"
    public static let userModel = "schemas/UserModel.xcdatamodeld"

    /// Builds the sample seed into `folder` (absolute); returns the built store.
    /// - Parameters:
    ///   - model: the seed model's path in the repository: the bundle (its current version) or one
    ///     version's `.xcdatamodel` folder (version 1 has no `ward`, so that column is skipped).
    ///   - userModels: merged with it, so the seed is stamped for the app's merged model; none for
    ///     a seed stamped with the seed model alone.
    public static func build(
        into folder: String, model: String = seedModel, userModels: [String] = [userModel], layout: StoreLayout = .coreData,
        dataVersion: Int64? = nil
    ) throws -> BuiltStore {
        var options = BuildOptions(files: [repositoryPath("seeds/postcodes.csv")])
        options.format = layout
        options.model = repositoryPath(model)
        options.userModels = userModels.map(repositoryPath)
        options.outputDirectory = folder
        if let dataVersion { options.dataVersion = dataVersion }
        if model.hasSuffix(".xcdatamodel") { options.ignoredColumns = ["ward"] }
        let (request, _) = try options.resolve(project: nil)
        return try SeedBuilder().build(request)
    }

    /// Builds, packages (signed with `key` when given) and publishes the sample seed to a folder
    /// destination; returns the channel to install from (`<destination>/postcodes/2/`).
    public static func publish(
        in directory: TemporaryDirectory, dataVersion: Int64 = 3, userModels: [String] = [userModel], sign key: SigningKey? = nil
    ) throws -> String {
        let built = try build(into: directory.path("out"), userModels: userModels, dataVersion: dataVersion)
        var packager = Packager()
        packager.signingKey = key
        _ = try packager.package(built)
        return try Publisher().publish(directory.path("out"), to: directory.path("dist")).channel
    }

    /// Publishes the sample seed signed with a fresh key; returns the channel and the public key in
    /// PEM form, as an app ships it.
    public static func publishSigned(in directory: TemporaryDirectory, dataVersion: Int64 = 3) throws -> (
        channel: String, publicKeyPEM: String
    ) {
        let key = SigningKey.generate()
        return (try publish(in: directory, dataVersion: dataVersion, sign: key), key.publicPEM)
    }

    /// The public key of another publisher, which signed nothing here.
    public static func strangersPublicKeyPEM() -> String { SigningKey.generate().publicPEM }

    /// The sample seed model merged with the sample user model: the app's model.
    public static func mergedModel() throws -> Model {
        try Model.merged([ModelLoader.load(repositoryPath(seedModel)), ModelLoader.load(repositoryPath(userModel))])
    }
}
