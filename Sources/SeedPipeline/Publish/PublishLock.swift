import Crypto
import Foundation
import SeedStore

/// What the channel lock objects of WebDAV and S3 (without conditional writes) share: the object's
/// name and contents, its owner, and its age by the server's own clock.
enum PublishLock {
    static let name = ".publish.lock"

    /// A lock older than this (by the server's clock) was left by a killed publish and is taken over;
    /// its holder writes only within the first half.
    static let lease: TimeInterval = 120

    /// How long a publish waits for a live lock before giving up (exit 75).
    static let wait: TimeInterval = 150

    struct Lease {
        let owner = UUID().uuidString.lowercased()
        let taken = DispatchTime.now()

        var age: TimeInterval { Double(DispatchTime.now().uptimeNanoseconds - taken.uptimeNanoseconds) / 1e9 }

        /// The lock's contents: who holds it.
        var body: Data {
            let value: JSONValue = .object([
                "owner": .string(owner), "host": .string(ProcessInfo.processInfo.hostName),
                "pid": .integer(Int64(ProcessInfo.processInfo.processIdentifier)),
                "created": .string(ISO8601DateFormatter().string(from: Date())),
            ])
            return Data(value.prettyText.utf8)
        }
    }

    /// The lock's owner token if it is a plain one, else a digest of its bytes: either is safe in a name.
    static func owner(of body: Data) -> String {
        if let text = String(data: body, encoding: .utf8), let owner = (try? JSONValue(jsonText: text))?.objectValue?["owner"]?.stringValue,
            !owner.isEmpty, owner.count <= 64, owner.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        {
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

    static func busy(_ url: String, _ held: HTTPTransport.Response) -> PublishError {
        PublishError(
            url: url, method: "PUT", status: 412,
            "another publish holds the channel's lock (\(String(decoding: held.body.prefix(300), as: UTF8.self).replacingOccurrences(of: "\n", with: " "))); try again later. A lock left by a killed publish is taken over \(Int(lease)) s after it was taken",
            transient: true)
    }

    static func heldTooLong(_ url: String) -> PublishError {
        PublishError(
            url: url, method: "PUT", status: nil,
            "this publish held the channel's lock for more than \(Int(lease / 2)) s; latest.json was not replaced, publish again",
            transient: true)
    }
}
