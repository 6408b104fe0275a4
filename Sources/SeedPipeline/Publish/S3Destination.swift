import Crypto
import Foundation
import SeedStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Publishing to S3-compatible object storage, path-style, signed with Signature Version 4.
///
/// Immutable objects are written with `If-None-Match: *` (a 412 on an object whose bytes match
/// counts as done); `latest.json` last, with `If-Match` on the ETag it was read with (see `updatePointer`).
struct S3Destination: PublishDestination {
    let endpoint: URL
    let bucket: String
    /// The channel's key prefix, ending in `/`.
    let prefix: String
    let signer: S3Signer
    let transport: HTTPTransport
    /// A canned ACL for uploaded objects (`public-read` lets apps download them without credentials).
    var acl: String?
    /// The `Cache-Control` and `Content-Type` each object is stored with.
    var cachePolicy = CachePolicy()
    /// Whether the server honours `If-Match` on `PUT`; nil: found out by a probe at each publish.
    var conditionalWrites: Bool?
    var lockLease = PublishLock.lease
    var lockWait = PublishLock.wait

    var aclHeader: [String: String] { acl.map { ["x-amz-acl": $0] } ?? [:] }

    private func key(_ path: String) -> String { prefix + path }

    private func objectURL(_ path: String, query: [(String, String)] = []) -> (URL, String) {
        let objectPath = "/\(bucket)/\(key(path))"
        let encodedPath = objectPath.split(separator: "/", omittingEmptySubsequences: false).map { S3Signer.encode(String($0)) }.joined(
            separator: "/")
        var text = endpoint.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + encodedPath
        if !query.isEmpty { text += "?" + query.map { "\(S3Signer.encode($0.0))=\(S3Signer.encode($0.1))" }.joined(separator: "&") }
        return (URL(string: text)!, objectPath)
    }

    func describe(_ path: String) -> String { "s3://\(bucket)/\(key(path))" }

    private var host: String {
        let host = endpoint.host ?? ""
        guard let port = endpoint.port, !(endpoint.scheme == "http" && port == 80), !(endpoint.scheme == "https" && port == 443) else {
            return host
        }
        return "\(host):\(port)"
    }

    private func signedHeaders(
        _ method: String, _ objectPath: String, query: [(String, String)] = [], extra: [String: String] = [:], payload: String
    ) -> [String: String] {
        var headers = extra
        headers["Host"] = host
        let signed = signer.sign(method: method, path: objectPath, query: query, headers: headers, payloadSHA256: payload, date: Date())
        // URLSession sets Host itself, to the same value.
        return extra.merging(signed) { _, new in new }
    }

    func call(
        _ method: String, _ path: String, query: [(String, String)] = [], extra: [String: String] = [:], body: Data? = nil,
        file: String? = nil, payload: String = S3Signer.emptyPayloadSHA256, maxBytes: Int64 = 1 << 20
    ) throws -> HTTPTransport.Response {
        let (url, objectPath) = objectURL(path, query: query)
        do {
            return try transport.retrying(method, url) { () throws(TransferError) in
                // Signed afresh each try: the signature carries the time.
                let headers = signedHeaders(method, objectPath, query: query, extra: extra, payload: payload)
                return try transport.send(method, url, headers: headers, body: body, bodyFile: file, maxBytes: maxBytes)
                    .throwingIfTransient(method, url)
            }
        } catch {
            throw PublishError(error)
        }
    }

    func fail(_ response: HTTPTransport.Response, _ method: String, _ path: String) -> PublishError {
        let code = String(decoding: response.body, as: UTF8.self).components(separatedBy: "<Code>").dropFirst().first?.components(
            separatedBy: "</Code>"
        ).first
        return PublishError(
            url: describe(path), method: method, status: response.status,
            "S3 answered \(code ?? "an error"); check the bucket, the credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and the endpoint"
        )
    }

    func read(_ path: String, maxBytes: Int64) throws -> Data? {
        let response = try call("GET", path, maxBytes: maxBytes)
        if response.status == 404 { return nil }
        guard response.status == 200 else { throw fail(response, "GET", path) }
        return response.body
    }

    func checksum(_ path: String) throws -> (Int64, String)? {
        let head = try call("HEAD", path)
        if head.status == 404 { return nil }
        guard head.status == 200 else { throw fail(head, "HEAD", path) }
        let size = Int64(head.header("Content-Length") ?? "") ?? Int64.max
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-s3-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let (url, objectPath) = objectURL(path)
        do {
            _ = try transport.retrying("GET", url) { () throws(TransferError) in
                try? FileManager.default.removeItem(atPath: temporary)
                return try transport.download(
                    url, into: DownloadFile.create(temporary), maxBytes: size, etag: nil,
                    headers: signedHeaders("GET", objectPath, payload: S3Signer.emptyPayloadSHA256))
            }
        } catch {
            throw PublishError(error)
        }
        let digest = try FileDigest(of: temporary)
        return (digest.bytes, digest.sha256)
    }

    func putImmutable(file: String, sha256: String, at path: String) throws {
        let headers = aclHeader.merging(cachePolicy.immutableHeaders(path)) { a, _ in a }.merging(["If-None-Match": "*"]) { a, _ in a }
        let response = try call("PUT", path, extra: headers, file: file, payload: sha256)
        if response.status == 412, let (_, existing) = try checksum(path) {
            guard existing == sha256 else {
                throw PublishError(
                    url: describe(path), method: "PUT", status: 412, "already exists with other bytes; immutable objects are never replaced"
                )
            }
            return
        }
        guard response.status == 200 else { throw fail(response, "PUT", path) }
    }

    func putPage(_ data: Data, at path: String) throws {
        let headers = aclHeader.merging(["Cache-Control": cachePolicy.pointerCacheControl, "Content-Type": CachePolicy.contentType(path)]) {
            a, _ in a
        }
        let put = try call("PUT", path, extra: headers, body: data, payload: S3Signer.hex(SHA256.hash(data: data)))
        guard put.status == 200 else { throw fail(put, "PUT", path) }
    }

    func delete(_ path: String) throws {
        let response = try call("DELETE", path)
        guard [200, 204, 404].contains(response.status) else { throw fail(response, "DELETE", path) }
    }

    /// Keys under the channel's folder, by `ListObjectsV2` (first 1,000).
    func list(_ folder: String) throws -> [String]? {
        let query = [("list-type", "2"), ("prefix", key(folder + "/"))]
        let bucketPath = "/\(bucket)"
        let listURL = URL(
            string: endpoint.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/\(S3Signer.encode(bucket))?"
                + query.map { "\(S3Signer.encode($0.0))=\(S3Signer.encode($0.1))" }.joined(separator: "&"))!
        let response: HTTPTransport.Response
        do {
            response = try transport.retrying("GET", listURL) { () throws(TransferError) in
                try transport.send(
                    "GET", listURL, headers: signedHeaders("GET", bucketPath, query: query, payload: S3Signer.emptyPayloadSHA256)
                ).throwingIfTransient("GET", listURL)
            }
        } catch {
            throw PublishError(error)
        }
        guard response.status == 200 else { throw fail(response, "GET", folder + "/") }
        let text = String(decoding: response.body, as: UTF8.self)
        return text.components(separatedBy: "<Key>").dropFirst().compactMap { $0.components(separatedBy: "</Key>").first }
            .map { String($0.dropFirst(key(folder + "/").count)) }
    }
}
