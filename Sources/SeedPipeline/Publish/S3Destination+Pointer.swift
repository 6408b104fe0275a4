import Crypto
import Foundation
import SeedStore

/// Replacing `latest.json` on S3 so that no other publish comes between reading and writing it.
///
/// Where the server has conditional writes (AWS S3 since 2024, moto, MinIO), `latest.json` is written
/// with `If-Match` on the ETag it was read with (or `If-None-Match: *` when there was none); a 412 or
/// 409 means another publish replaced it in between, and the decision is made again on what is there
/// now. A server that ignores `If-Match` (found by a probe) gets a lock object instead:
/// `.publish.lock`, created with `If-None-Match: *`, read back to see it is this publish's, taken over
/// after its lease by the server's clock, written under only within the first half of the lease.
extension S3Destination {
    func updatePointer(_ decide: (Data?) throws -> Data?) throws {
        if try conditionalWrites ?? probeConditionalWrites() {
            try updatePointerConditionally(decide)
        } else {
            let lease = try acquireLock()
            defer { releaseLock(lease) }
            guard let data = try decide(try read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes)) else { return }
            guard lease.age < lockLease / 2 else { throw PublishLock.heldTooLong(describe(PublishLock.name)) }
            try putPointer(data, condition: [:])
        }
    }

    /// A `PUT` on an ETag no object has is refused by a server that honours `If-Match` (412, or 404
    /// when there is no object); one that ignores it writes the probe, which is removed again.
    func probeConditionalWrites() throws -> Bool {
        let path = ".publish.probe"
        let response = try call(
            "PUT", path, extra: ["If-Match": "\"seedbuild-probe-no-such-etag\""], body: Data(), payload: S3Signer.emptyPayloadSHA256)
        switch response.status {
        case 412, 404: return true
        case 200:
            try delete(path)
            return false
        default: throw fail(response, "PUT", path)
        }
    }

    private func updatePointerConditionally(_ decide: (Data?) throws -> Data?) throws {
        let path = ReleasePointer.fileName
        for _ in 0..<20 {
            let current = try call("GET", path, maxBytes: ReleasePointer.maxBytes)
            guard current.status == 200 || current.status == 404 else { throw fail(current, "GET", path) }
            let etag = current.status == 200 ? current.header("ETag") : nil
            if current.status == 200, etag == nil {
                throw PublishError(
                    url: describe(path), method: "GET", status: 200,
                    "the server gives latest.json no ETag, so it cannot be replaced on condition; use a server with S3 conditional writes")
            }
            guard let data = try decide(current.status == 200 ? current.body : nil) else { return }
            let status = try putPointer(data, condition: etag.map { ["If-Match": $0] } ?? ["If-None-Match": "*"])
            if status == 200 { return }
        }
        throw PublishError(
            url: describe(path), method: "PUT", status: 412, "latest.json kept being replaced by other publishes; try again later",
            transient: true)
    }

    /// `PUT latest.json`; returns 200, or 412/409/404 when the condition did not hold.
    @discardableResult
    private func putPointer(_ data: Data, condition: [String: String]) throws -> Int {
        let path = ReleasePointer.fileName
        let headers = aclHeader.merging(cachePolicy.pointerHeaders) { a, _ in a }.merging(condition) { a, _ in a }
        let put = try call("PUT", path, extra: headers, body: data, payload: S3Signer.hex(SHA256.hash(data: data)))
        guard put.status == 200 || (!condition.isEmpty && [412, 409, 404].contains(put.status)) else { throw fail(put, "PUT", path) }
        return put.status
    }

    private func acquireLock() throws -> PublishLock.Lease {
        let lease = PublishLock.Lease()
        let name = PublishLock.name
        let started = Date()
        while true {
            let put = try call(
                "PUT", name, extra: ["If-None-Match": "*"], body: lease.body, payload: S3Signer.hex(SHA256.hash(data: lease.body)))
            guard [200, 412, 409].contains(put.status) else { throw fail(put, "PUT", name) }
            let held = try call("GET", name, maxBytes: 4096)
            if held.status == 404 { continue }
            guard held.status == 200 else { throw fail(held, "GET", name) }
            // Read back: written over by another publish meanwhile means not held.
            if put.status == 200, PublishLock.owner(of: held.body) == lease.owner { return lease }
            if let age = PublishLock.serverAge(held), age > lockLease {
                try delete(name)
                continue
            }
            guard Date().timeIntervalSince(started) < lockWait else { throw PublishLock.busy(describe(name), held) }
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.25))
        }
    }

    private func releaseLock(_ lease: PublishLock.Lease) {
        guard let held = try? call("GET", PublishLock.name, maxBytes: 4096), held.status == 200,
            PublishLock.owner(of: held.body) == lease.owner
        else { return }
        try? delete(PublishLock.name)
    }
}
