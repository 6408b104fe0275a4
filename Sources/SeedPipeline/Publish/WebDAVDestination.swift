import Foundation
import SeedStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Publishing to an HTTP server with WebDAV (`PUT`, `MOVE`, `MKCOL`, `DELETE`), e.g. nginx's dav module.
///
/// Objects are uploaded under a temporary name and moved into place: with `Overwrite: F` for
/// immutable objects (a 412 on an object whose bytes already match counts as done) and with
/// overwriting for `latest.json` only, under the channel's lock object (see `updatePointer`). nginx
/// ignores `If-None-Match` and `If-Match` on `PUT`, so neither is relied on.
struct WebDAVDestination: PublishDestination {
    let base: URL
    let transport: HTTPTransport
    /// A lock object older than this (by the server's clock) was left by a killed publish and is taken over.
    var lockLease = PublishLock.lease
    /// Waits this long for another publish to let go of the lock.
    var lockWait = PublishLock.wait

    func url(_ path: String) -> URL { (path.isEmpty ? base : URL(string: path, relativeTo: base) ?? base).absoluteURL }

    func describe(_ path: String) -> String { url(path).absoluteString }

    func call(
        _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil, file: String? = nil, maxBytes: Int64 = 1 << 20
    ) throws -> HTTPTransport.Response {
        let target = url(path)
        do {
            return try transport.retrying(method, target) { () throws(TransferError) in
                try transport.send(method, target, headers: headers, body: body, bodyFile: file, maxBytes: maxBytes).throwingIfTransient(
                    method, target)
            }
        } catch {
            throw PublishError(error)
        }
    }

    func expect(_ response: HTTPTransport.Response, _ method: String, _ path: String, _ statuses: Set<Int>) throws {
        guard statuses.contains(response.status) else {
            throw PublishError(
                url: describe(path), method: method, status: response.status,
                "unexpected answer; check the server accepts WebDAV \(method) there")
        }
    }

    func read(_ path: String, maxBytes: Int64) throws -> Data? {
        let response = try call("GET", path, maxBytes: maxBytes)
        if response.status == 404 { return nil }
        try expect(response, "GET", path, [200])
        return response.body
    }

    func checksum(_ path: String) throws -> (Int64, String)? {
        let head = try call("HEAD", path)
        if head.status == 404 { return nil }
        try expect(head, "HEAD", path, [200])
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-check-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let size = Int64(head.header("Content-Length") ?? "") ?? Int64.max
        do {
            _ = try transport.download(url(path), into: DownloadFile.create(temporary), maxBytes: size, etag: nil)
        } catch {
            throw PublishError(error)
        }
        let digest = try FileDigest(of: temporary)
        return (digest.bytes, digest.sha256)
    }

    /// Creates each missing folder from the server's root down to `path`'s (405: it exists already).
    func makeFolders(for path: String) throws {
        var folder = "/"
        for part in url(path).path.split(separator: "/").dropLast() {
            folder += "\(part)/"
            let target = URL(string: folder, relativeTo: base)!.absoluteString
            let response = try call("MKCOL", target)
            try expect(response, "MKCOL", target, [201, 405])
        }
    }

    private func upload(_ file: String?, data: Data?, to path: String, overwrite: Bool) throws -> Int {
        try makeFolders(for: path)
        let temporary = "\(path).tmp-\(UUID().uuidString.prefix(8))"
        let put = try call("PUT", temporary, body: data, file: file)
        try expect(put, "PUT", temporary, [201, 204])
        let move = try call("MOVE", temporary, headers: ["Destination": describe(path), "Overwrite": overwrite ? "T" : "F"])
        if move.status == 412 { _ = try? call("DELETE", temporary) }
        return move.status
    }

    func putImmutable(file: String, sha256: String, at path: String) throws {
        if let (_, existing) = try checksum(path) {
            guard existing == sha256 else {
                throw PublishError(
                    url: describe(path), method: "PUT", status: nil, "already exists with other bytes; immutable objects are never replaced"
                )
            }
            return
        }
        let status = try upload(file, data: nil, to: path, overwrite: false)
        if status == 412, let (_, existing) = try checksum(path), existing == sha256 { return }
        guard status == 201 || status == 204 else {
            throw PublishError(url: describe(path), method: "MOVE", status: status, "the object could not be moved into place")
        }
    }

    /// Replaces the pointer unconditionally; only `updatePointer`, under the lock, calls it.
    func putPointer(_ data: Data, at path: String) throws {
        let status = try upload(nil, data: data, to: path, overwrite: true)
        guard status == 201 || status == 204 else {
            throw PublishError(url: describe(path), method: "MOVE", status: status, "latest.json could not be replaced")
        }
    }

    func putPage(_ data: Data, at path: String) throws {
        let status = try upload(nil, data: data, to: path, overwrite: true)
        guard status == 201 || status == 204 else {
            throw PublishError(url: describe(path), method: "MOVE", status: status, "the channel page could not be replaced")
        }
    }

    func delete(_ path: String) throws {
        let response = try call("DELETE", path)
        try expect(response, "DELETE", path, [200, 204, 404])
    }

    /// Plain WebDAV `PUT`/`MOVE` servers need not list folders, so pruning is not offered here.
    func list(_ folder: String) throws -> [String]? { nil }
}
