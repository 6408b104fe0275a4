import Foundation

/// A folder of its own for one test, removed when the test ends.
public final class TemporaryDirectory {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("seedbuild-tests-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Built and installed stores are read-only; make them removable first.
        if let files = FileManager.default.enumerator(atPath: url.path) {
            for case let file as String in files {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(file).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    public var path: String { url.path }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `text` to `name` inside the folder, creating the folders on its way; returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let file = url.appendingPathComponent(name)
        try! FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(text.utf8).write(to: file)
        return file.path
    }
}

/// The repository's root folder, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A path inside the repository (`seeds/postcodes.csv`, `schemas/UserModel.xcdatamodeld`).
public func repositoryPath(_ relative: String) -> String {
    repositoryRoot.appendingPathComponent(relative).path
}
