import Foundation

/// The seed an app opens: the store `DIR/<dataset>.current` names, as the last install left it.
public struct InstalledStore: Sendable, Hashable {
    /// The store file, `DIR/<dataset>-<dataVersion>.sqlite`.
    public var path: String
    /// The data version of the release the store holds.
    public var dataVersion: Int64
}

extension SeedInstaller {
    /// The store installed in `directory` for `dataset`, or nil when none is: what an app adds to its
    /// coordinator at launch, before (or without) fetching a newer release.
    ///
    /// ```swift
    /// if let seed = SeedInstaller.installedStore(dataset: "postcodes", in: seedsFolder) {
    ///     description = NSPersistentStoreDescription(url: URL(fileURLWithPath: seed.path))
    /// }
    /// ```
    public static func installedStore(dataset: String, in directory: String) -> InstalledStore? {
        guard ReleaseNames.isValidDataset(dataset) else { return nil }
        let state = InstallRecord(directory: directory, dataset: dataset)
        guard let current = state.current, FileManager.default.fileExists(atPath: state.path(current.store)) else { return nil }
        return InstalledStore(path: state.path(current.store), dataVersion: current.dataVersion)
    }
}
