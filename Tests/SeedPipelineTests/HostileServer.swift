import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `hostile_server.py` on 127.0.0.1: serves a folder, attacks GETs of one path; stopped on deinit or by itself.
final class HostileServer {
    enum Attack: String {
        case hugeLength = "huge-length", endless, oversized, trickle, stall
    }

    private let process = Process()
    let port: Int
    let log: String

    var url: String { "http://127.0.0.1:\(port)/" }

    init(root: String, target: String, attack: Attack, lifetime: TimeInterval = 60) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-hostile-\(UUID().uuidString).log").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("hostile_server.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--root", root, "--target", target, "--attack", attack.rawValue,
                             "--log", log, "--lifetime", "\(lifetime)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableLine()
        guard let port = Int(line) else {
            process.terminate()
            throw NSError(domain: "HostileServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no port from the server: \(line)"])
        }
        self.port = port
    }

    deinit {
        // Never kill(0, …): a process that did not start has pid 0, and that would end the test run.
        if process.processIdentifier > 0 {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: log)
    }

    /// The request lines the server saw.
    var requests: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
