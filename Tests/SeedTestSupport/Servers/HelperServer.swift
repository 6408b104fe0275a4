import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Python helper server from this folder on 127.0.0.1: started with a log file, it prints its port;
/// killed on deinit.
final class HelperServer {
    private let process = Process()
    let port: Int
    let log: String

    var url: String { "http://127.0.0.1:\(port)/" }

    init(script: String, arguments: [String]) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-\(script)-\(UUID().uuidString).log").path
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(script).path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", path] + arguments + ["--log", log]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableLine()
        guard let port = Int(line) else {
            process.terminate()
            throw NSError(domain: script, code: 1, userInfo: [NSLocalizedDescriptionKey: "no port from \(script): \(line)"])
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

extension FileHandle {
    /// Reads up to the first newline.
    func availableLine() -> String {
        var bytes: [UInt8] = []
        while let byte = try? read(upToCount: 1), let first = byte.first, first != 0x0A {
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
