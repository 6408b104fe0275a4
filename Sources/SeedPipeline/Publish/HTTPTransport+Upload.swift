import Foundation
import SeedInstall

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPTransport {
    /// Sends a request with a body (`PUT`, S3's `POST`), from memory or streamed from `bodyFile`, and
    /// collects the answer as ``HTTPTransport/send(_:_:headers:maxBytes:deadline:makeTask:)`` does.
    package func send(
        _ method: String, _ url: URL, headers: [String: String] = [:], body: Data?, bodyFile: String? = nil, maxBytes: Int64 = 1 << 20
    ) throws(TransferError) -> Response {
        guard body != nil || bodyFile != nil else { return try send(method, url, headers: headers, maxBytes: maxBytes) }
        return try send(method, url, headers: headers, maxBytes: maxBytes) { session, request in
            if let bodyFile {
                session.uploadTask(with: request, fromFile: URL(fileURLWithPath: bodyFile))
            } else {
                session.uploadTask(with: request, from: body ?? Data())
            }
        }
    }
}
