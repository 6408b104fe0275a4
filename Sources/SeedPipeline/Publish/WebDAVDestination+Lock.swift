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
    func updatePointer(_ decide: (Data?) throws -> Data?) throws {
        let lease = try acquireLock()
        defer { releaseLock(lease) }
        guard let data = try decide(try read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes)) else { return }
        guard lease.age < lockLease / 2 else { throw PublishLock.heldTooLong(describe(PublishLock.name)) }
        try putPointer(data, at: ReleasePointer.fileName)
    }

    private func acquireLock() throws -> PublishLock.Lease {
        let lease = PublishLock.Lease()
        let name = PublishLock.name
        try makeFolders(for: name)
        let temporary = "\(name).tmp-\(lease.owner.prefix(8))"
        defer { _ = try? call("DELETE", temporary) }
        let started = Date()
        var written: Date?
        while true {
            // Written again after a wait: MOVE keeps its modification time, which others read as the lock's age.
            if written.map({ Date().timeIntervalSince($0) > 5 }) ?? true {
                try expect(try call("PUT", temporary, body: lease.body), "PUT", temporary, [201, 204])
                written = Date()
            }
            let move = try call("MOVE", temporary, headers: ["Destination": describe(name), "Overwrite": "F"])
            if move.status == 201 || move.status == 204 { return lease }
            try expect(move, "MOVE", name, [412])
            let held = try call("GET", name, maxBytes: 4096)
            if held.status == 404 { continue }
            try expect(held, "GET", name, [200])
            if let age = PublishLock.serverAge(held), age > lockLease {
                // Only the run that moves this very lock aside gets to try again first; the name is taken for good.
                _ = try call(
                    "MOVE", name, headers: ["Destination": describe("\(name).stale-\(PublishLock.owner(of: held.body))"), "Overwrite": "F"])
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
        _ = try? call("DELETE", PublishLock.name)
    }
}
