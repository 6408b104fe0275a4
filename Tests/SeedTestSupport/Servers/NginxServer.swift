import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real nginx with WebDAV on 127.0.0.1, in a temporary folder, on a port chosen at run time; stopped on deinit.
public final class NginxServer {
    public let directory: URL
    public let port: Int
    private let process = Process()

    public var root: String { directory.appendingPathComponent("www").path }
    public var url: String { "http://127.0.0.1:\(port)/" }

    /// - Parameter limitRate: nginx's `limit_rate` (bytes per second, `64k`), to make downloads last.
    public init(limitRate: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-nginx-\(UUID().uuidString)")
        for folder in ["www", "tmp"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        port = try Self.freePort()
        let path = directory.path
        // master_process off: one process, running as this user, so the document root is writable by it.
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(path)/error.log;
            pid \(path)/nginx.pid;
            events { worker_connections 64; }
            http {
              access_log off;
              client_body_temp_path \(path)/tmp/body;
              proxy_temp_path \(path)/tmp/proxy;
              fastcgi_temp_path \(path)/tmp/fastcgi;
              uwsgi_temp_path \(path)/tmp/uwsgi;
              scgi_temp_path \(path)/tmp/scgi;
              server {
                listen 127.0.0.1:\(port);
                root \(path)/www;
                \(limitRate.map { "limit_rate \($0);" } ?? "")
                client_max_body_size 0;
                location / {
                  dav_methods PUT DELETE MKCOL COPY MOVE;
                  create_full_put_path on;
                  dav_access user:rw group:r all:r;
                }
              }
            }
            """
        try config.write(toFile: "\(path)/nginx.conf", atomically: true, encoding: .utf8)
        guard let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw NSError(
                domain: "NginxServer", code: 2,
                userInfo: [NSLocalizedDescriptionKey: "nginx is not installed; run scripts/test, which installs it"])
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", "\(path)/nginx.conf", "-p", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Up to 30 s: every suite starts its servers at once on a loaded machine.
        for _ in 0..<600 where !Self.accepts(port) { usleep(50_000) }
        guard Self.accepts(port) else {
            process.terminate()
            let log = (try? String(contentsOfFile: "\(path)/error.log", encoding: .utf8)) ?? ""
            throw NSError(domain: "NginxServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(log)"])
        }
    }

    deinit {
        // nginx without a master process may not stop on SIGTERM; tests must never hang on it.
        // A process that never started has pid 0, and kill(0, …) would kill this whole test run.
        if process.processIdentifier > 0 {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func freePort() throws -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0
            }
        }
        guard bound else { throw NSError(domain: "NginxServer", code: 2) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
