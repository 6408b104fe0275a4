import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The install record, `DIR/<dataset>.current`: which installed store is in use and what the install
/// recorded of it (digests, the file's stamp); switched atomically.
struct InstallRecord {
    struct Current {
        var store: String
        var dataVersion: Int64
        /// The release's content digest, as its manifest stated it.
        var contentDigest: String?
        /// The store file's SHA-256 as installed (after a re-stamp, of the re-stamped file); nil in a
        /// `.current` written before installs recorded it.
        var storeSHA256: String?
        /// The release's set digest (``SetDigest``), when the store installed is the release's exactly
        /// (not re-stamped): a delta from it is checked by updating it with the rows the delta touches.
        var setDigest: String?
        /// The file as installed (``StoreStamp``): while it holds, the store is known unchanged unread.
        var stamp: StoreStamp?
    }

    let directory: String
    let dataset: String

    var currentFile: String { (directory as NSString).appendingPathComponent("\(dataset).current") }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    var current: Current? {
        guard let data = FileManager.default.contents(atPath: currentFile), let text = String(data: data, encoding: .utf8),
            let object = (try? JSONValue(jsonText: text))?.objectValue, let store = object["store"]?.stringValue,
            let version = object["dataVersion"]?.integerValue, isStoreName(store)
        else { return nil }
        let digest = object["contentDigest"]?.stringValue, sha256 = object["storeSHA256"]?.stringValue
        return Current(
            store: store, dataVersion: version, contentDigest: digest,
            storeSHA256: sha256.flatMap { ReleaseNames.isSHA256($0) ? $0 : nil },
            setDigest: object["setDigest"]?.stringValue.flatMap { SetDigest($0) == nil ? nil : $0 },
            stamp: StoreStamp(json: object["stamp"]))
    }

    /// Points `.current` at the new store, then removes the stores it no longer names, with the
    /// files SQLite keeps beside them (`-wal`, `-shm`, `-journal`: an app's connection leaves them).
    /// - Parameter storeSHA256: the file's SHA-256 as installed, which a later delta's base must still have.
    /// - Parameter setDigest: the release's set digest, when the store is the release's as published.
    ///   The store's ``StoreStamp`` is recorded too; a store installed by a delta may have no SHA-256
    ///   (its set digest stands for its content, and its stamp for its file).
    func switchTo(storeFile: String, dataVersion: Int64, contentDigest: String, storeSHA256: String?, setDigest: String? = nil) throws {
        var fields: [String: JSONValue] = [
            "store": .string(storeFile), "dataVersion": .integer(dataVersion), "contentDigest": .string(contentDigest),
        ]
        if let storeSHA256 { fields["storeSHA256"] = .string(storeSHA256) }
        if let setDigest { fields["setDigest"] = .string(setDigest) }
        if let stamp = StoreStamp(path: path(storeFile)) { fields["stamp"] = stamp.json }
        let value: JSONValue = .object(fields)
        let temporary = AtomicFile.temporaryPath(for: currentFile)
        defer { unlink(temporary) }
        let file = try DownloadFile.create(temporary, mode: 0o644)
        try file.write(Data((value.prettyText + "\n").utf8), at: 0)
        try AtomicFile.commit(temporary, to: currentFile, mode: 0o644)
        let others = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in others {
            let store = Self.sidecarSuffixes.first { name.hasSuffix($0) }.map { String(name.dropLast($0.count)) } ?? name
            guard store != storeFile, isStoreName(store) else { continue }
            // unlink removes the name only, never what a symlink there points to.
            unlink(path(name))
        }
    }

    /// The files SQLite names after a store it has open.
    static let sidecarSuffixes = ["-wal", "-shm", "-journal"]

    /// `<dataset>-<digits>.sqlite`.
    func isStoreName(_ name: String) -> Bool {
        name.hasPrefix("\(dataset)-") && name.hasSuffix(".sqlite") && name.count > dataset.count + 8
            && name.dropFirst(dataset.count + 1).dropLast(7).allSatisfy(\.isNumber)
    }
}
