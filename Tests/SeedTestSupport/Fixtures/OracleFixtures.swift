import Foundation
import Testing

/// The stores and models Apple's Core Data wrote, kept as test fixtures in `Tests/Fixtures/oracles`.
///
/// Those whose licenses allow it are in the repository; the others are listed in `FETCHED` and put
/// in place by `scripts/fetch-fixtures` (which `scripts/test` runs). A test that needs a missing one
/// is skipped, naming the fixture and the command that fetches it.
public enum OracleFixtures {
    /// `Tests/Fixtures/oracles` in this checkout.
    public static let root = repositoryRoot.appendingPathComponent("Tests/Fixtures/oracles")

    /// The oracle folders, one per public repository (`alemar11__CoreDataPlus`, …), sorted.
    public static var folders: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }.sorted()
    }

    /// A file or folder inside the oracles, by its path there (`wireapp__wire-ios-data-model/stores/…`).
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// The files of `FETCHED` that are not in place, by path under the oracles.
    public static let missing: [String] = {
        let list = (try? String(contentsOf: root.appendingPathComponent("FETCHED"), encoding: .utf8)) ?? ""
        return list.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, !line.hasPrefix("#") else { return nil }
            let path = String(fields[1])
            return FileManager.default.fileExists(atPath: url(path).path) ? nil : path
        }
    }()

    /// Whether every fetched file of these oracle folders is in place.
    public static func arePresent(_ folders: [String]) -> Bool {
        !missing.contains { path in folders.contains { path.hasPrefix($0 + "/") } }
    }

    /// What a skipped test says: the missing fixtures and how to get them.
    public static func notice(_ folders: [String]) -> String {
        let absent = missing.filter { path in folders.contains { path.hasPrefix($0 + "/") } }
        return
            "needs the fixture\(absent.count == 1 ? "" : "s") \(absent.joined(separator: ", ")) (not redistributable): run scripts/fetch-fixtures"
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when every fetched fixture is in place; its skip notice also says that
    /// the parameterized oracle tests leave out the cases of the missing folders.
    public static var needsAllOracles: Self {
        let folders = OracleFixtures.fetchedFolders
        let notice =
            OracleFixtures.notice(folders) + "; until then every parameterized oracle test leaves out the cases of "
            + folders.filter { !OracleFixtures.arePresent([$0]) }.joined(separator: ", ")
        return .enabled(if: OracleFixtures.arePresent(folders), Comment(rawValue: notice))
    }

    /// Runs the test only when the fetched fixtures of these oracle folders are in place; otherwise
    /// it is skipped, naming them and `scripts/fetch-fixtures`.
    public static func needsOracles(_ folders: String...) -> Self {
        .enabled(if: OracleFixtures.arePresent(folders), Comment(rawValue: OracleFixtures.notice(folders)))
    }
}

extension OracleFixtures {
    /// The oracle folders that have fetched files (whose licenses keep them out of the repository).
    public static let fetchedFolders: [String] = {
        let list = (try? String(contentsOf: root.appendingPathComponent("FETCHED"), encoding: .utf8)) ?? ""
        let folders = list.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            line.split(separator: " ").dropFirst().first?.split(separator: "/").first.map(String.init)
        }
        return Array(Set(folders)).sorted()
    }()

    /// The items whose oracle folder (the first part of `path`) has all its fixtures in place.
    ///
    /// Parameterized tests take their cases through this, so a case whose fixture is missing is
    /// left out rather than failed; the suite's `.needsOracles` test is skipped with the notice.
    public static func present<Item>(_ items: [Item], path: (Item) -> String) -> [Item] {
        items.filter { item in arePresent([String(path(item).split(separator: "/").first ?? "")]) }
    }

    /// The paths whose oracle folder has all its fixtures in place.
    public static func present(_ paths: [String]) -> [String] { present(paths) { $0 } }
}
