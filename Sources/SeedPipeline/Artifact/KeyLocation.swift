import Foundation

/// Where a private signing key may be written: never where `git add .` would pick it up.
///
/// A path inside a git work tree is refused unless git ignores it there (`git check-ignore`);
/// the refusal suggests a folder outside any work tree.
public enum KeyLocation {
    /// Outside every work tree by convention: `$XDG_CONFIG_HOME/seedbuild/keys`, else `~/.config/seedbuild/keys`.
    public static func suggestedDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".config")
        return (config as NSString).appendingPathComponent("seedbuild/keys")
    }

    /// - Throws: ``IngestError`` (cannot create output) when `path` lies in a git work tree that does not ignore it.
    public static func checkOutsideWorkTree(_ path: String) throws(IngestError) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let workTree = enclosingWorkTree(of: absolute) else { return }
        guard !isIgnored(absolute, in: workTree) else { return }
        throw IngestError(
            .cannotCreateOutput, file: path,
            "inside the git work tree \(workTree), which does not ignore it: a private key there is one `git add .` away from being published. Write it outside, e.g. --out \(suggestedDirectory()), or add the folder to \(workTree)/.gitignore first"
        )
    }

    /// The nearest folder at or above `path` that holds `.git` (a folder, or a file for linked work trees).
    static func enclosingWorkTree(of path: String) -> String? {
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) { return folder.path }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// Whether git ignores `path` in `workTree`; false when git cannot tell (not installed, not a repository).
    static func isIgnored(_ path: String, in workTree: String) -> Bool {
        #if os(macOS) || os(Linux)
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            git.arguments = ["git", "-C", workTree, "check-ignore", "-q", "--no-index", path]
            git.standardOutput = FileHandle.nullDevice
            git.standardError = FileHandle.nullDevice
            do { try git.run() } catch { return false }
            git.waitUntilExit()
            return git.terminationStatus == 0
        #else
            // No Process (and no git) on iOS, tvOS, watchOS or visionOS.
            return false
        #endif
    }
}
