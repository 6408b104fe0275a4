import Foundation

extension URL {
    /// This path relative to `directory` when it lies inside it, else the absolute path.
    func relativePath(from directory: String) -> String {
        let base = URL(fileURLWithPath: directory).standardizedFileURL.path
        let full = standardizedFileURL.path
        if full.hasPrefix(base + "/") { return String(full.dropFirst(base.count + 1)) }
        return full
    }
}
