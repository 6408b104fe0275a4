import Foundation

/// `hostile_server.py` on 127.0.0.1: serves a folder, attacks GETs of one path; stopped on deinit or by itself.
public final class HostileServer {
    public enum Attack: String, Sendable {
        case hugeLength = "huge-length", endless, oversized, encoded, trickle, stall
    }

    private let server: HelperServer

    public var url: String { server.url }
    /// The request lines the server saw.
    public var requests: [String] { server.requests }

    public init(root: String, target: String, attack: Attack, lifetime: TimeInterval = 60) throws {
        server = try HelperServer(
            script: "hostile_server.py",
            arguments: [
                "--root", root, "--target", target, "--attack", attack.rawValue, "--lifetime", "\(lifetime)",
            ])
    }
}
