import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `fault_proxy.py` in front of a real server: answers with errors or hangs up, as told; stopped on deinit.
final class FaultProxy {
    private let process = Process()
    let port: Int
    let log: String

    var url: String { "http://127.0.0.1:\(port)/" }

    init(upstream: String, failFirst: Int = 0, status: Int = 503, dropGets: Int = 0, dropPuts: Int = 0) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-proxy-\(UUID().uuidString).log").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("fault_proxy.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--upstream", upstream, "--fail-first", "\(failFirst)", "--status", "\(status)",
                             "--drop-gets", "\(dropGets)", "--drop-puts", "\(dropPuts)", "--log", log]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableLine()
        guard let port = Int(line) else {
            process.terminate()
            throw NSError(domain: "FaultProxy", code: 1, userInfo: [NSLocalizedDescriptionKey: "no port from the proxy: \(line)"])
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

    /// The request lines the proxy saw.
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
