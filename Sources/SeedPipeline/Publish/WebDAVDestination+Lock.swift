import Crypto
import Foundation
import SeedStore

/// The channel's lock on a WebDAV server: `.publish.lock`, created with `MOVE` and `Overwrite: F`.
///
/// nginx answers that `MOVE` with 412 when the lock exists, and ignores conditional headers on `PUT`,
/// so the create-if-absent of `MOVE` is the one atomic step there is. A lock older than the lease (by
/// the server's own `Date` and `Last-Modified`, so no clocks are compared) was left by a killed
/// publish: it is moved aside to `.publish.lock.stale-<owner>`, a name only that lock can take, so of
/// two publishes taking over the same stale lock exactly one succeeds. A holder replaces
/// `latest.json` only within the first half of its lease, so it never writes after its lock could
/// have been taken over.
extension WebDAVDestination {
    static let lockName = ".publish.lock"

    func updatePointer(_ decide: (Data?) throws -> Data?) throws {
        let lease = try acquireLock()
        defer { releaseLock(lease) }
        guard let data = try decide(try read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes)) else { return }
        guard lease.age < lockLease / 2 else {
            throw PublishError(url: describe(Self.lockName), method: "MOVE", status: nil,
                               "this publish held the channel's lock for more than \(Int(lockLease / 2)) s; latest.json was not replaced, publish again", transient: true)
        }
        try putPointer(data, at: ReleasePointer.fileName)
    }

    struct Lease {
        let owner: String
        let taken = DispatchTime.now()

        var age: TimeInterval { Double(DispatchTime.now().uptimeNanoseconds - taken.uptimeNanoseconds) / 1e9 }
    }

    private func acquireLock() throws -> Lease {
        let lease = Lease(owner: UUID().uuidString.lowercased())
        let body: JSONValue = .object([
            "owner": .string(lease.owner), "host": .string(ProcessInfo.processInfo.hostName),
            "pid": .integer(Int64(ProcessInfo.processInfo.processIdentifier)),
            "created": .string(ISO8601DateFormatter().string(from: Date())),
        ])
        try makeFolders(for: Self.lockName)
        let temporary = "\(Self.lockName).tmp-\(lease.owner.prefix(8))"
        try expect(try call("PUT", temporary, body: Data(body.prettyText.utf8)), "PUT", temporary, [201, 204])
        defer { _ = try? call("DELETE", temporary) }
        let started = Date()
        while true {
            let move = try call("MOVE", temporary, headers: ["Destination": describe(Self.lockName), "Overwrite": "F"])
            if move.status == 201 || move.status == 204 { return lease }
            try expect(move, "MOVE", Self.lockName, [412])
            let held = try call("GET", Self.lockName, maxBytes: 4096)
            if held.status == 404 { continue }
            try expect(held, "GET", Self.lockName, [200])
            let holder = Self.owner(of: held.body)
            if let age = Self.serverAge(held), age > lockLease {
                // Only the run that moves this very lock aside gets to try again first; the name is taken for good.
                _ = try call("MOVE", Self.lockName, headers: ["Destination": describe("\(Self.lockName).stale-\(holder)"), "Overwrite": "F"])
                continue
            }
            guard Date().timeIntervalSince(started) < lockWait else {
                throw PublishError(url: describe(Self.lockName), method: "MOVE", status: 412,
                                   "another publish holds the channel's lock (\(String(decoding: held.body.prefix(300), as: UTF8.self).replacingOccurrences(of: "\n", with: " "))); try again later. A lock left by a killed publish is taken over \(Int(lockLease)) s after it was taken", transient: true)
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.25))
        }
    }

    private func releaseLock(_ lease: Lease) {
        guard let held = try? call("GET", Self.lockName, maxBytes: 4096), held.status == 200, Self.owner(of: held.body) == lease.owner else { return }
        _ = try? call("DELETE", Self.lockName)
    }

    /// The lock's owner token if it is a plain one, else a digest of its bytes: either is safe in a name.
    static func owner(of body: Data) -> String {
        if let text = String(data: body, encoding: .utf8), let owner = (try? JSONValue(jsonText: text))?.objectValue?["owner"]?.stringValue,
            !owner.isEmpty, owner.count <= 64, owner.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
            return owner
        }
        return String(Data(SHA256.hash(data: body)).hexString.prefix(32))
    }

    /// Seconds since the lock was written, from the server's `Date` and the lock's `Last-Modified`.
    static func serverAge(_ response: HTTPTransport.Response) -> TimeInterval? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let now = response.header("Date").flatMap(formatter.date(from:)),
            let written = response.header("Last-Modified").flatMap(formatter.date(from:))
        else { return nil }
        return now.timeIntervalSince(written)
    }
}
