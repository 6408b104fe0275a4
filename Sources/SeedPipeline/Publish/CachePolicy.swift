/// What caches between the server and the apps (a CDN, a proxy) may keep, sent with each object
/// where the destination stores headers (S3); for a folder or WebDAV server, the server's own
/// rules do the same (`docs/publishing.md` gives nginx's).
///
/// Artifacts and manifests are immutable: their names change with their content, so a cache may
/// keep them for a year. `latest.json` is the one object replaced: a cache must ask the origin
/// again before serving it (or after `pointerMaxAge` seconds), or apps would see yesterday's release.
public struct CachePolicy: Sendable, Equatable {
    /// Seconds a cache may serve `latest.json` without asking the origin; 0 asks every time.
    public var pointerMaxAge: Int

    public init(pointerMaxAge: Int = 0) {
        self.pointerMaxAge = pointerMaxAge
    }

    /// `Cache-Control` of artifacts and manifests: a year, and never revalidated.
    public static let immutableCacheControl = "public, max-age=31536000, immutable"

    /// `Cache-Control` of `latest.json`.
    public var pointerCacheControl: String {
        pointerMaxAge > 0 ? "public, max-age=\(pointerMaxAge), must-revalidate" : "no-cache"
    }

    /// The headers an immutable object at `path` is stored with.
    func immutableHeaders(_ path: String) -> [String: String] {
        ["Cache-Control": Self.immutableCacheControl, "Content-Type": Self.contentType(path)]
    }

    /// The headers `latest.json` is stored with.
    var pointerHeaders: [String: String] {
        ["Cache-Control": pointerCacheControl, "Content-Type": "application/json"]
    }

    static func contentType(_ path: String) -> String {
        if path.hasSuffix(".json") { return "application/json" }
        if path.hasSuffix(".gz") { return "application/gzip" }
        if path.hasSuffix(".html") { return "text/html; charset=utf-8" }
        return "application/octet-stream"
    }
}
