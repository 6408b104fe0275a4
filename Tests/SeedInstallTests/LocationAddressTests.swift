import SeedInstall
import Testing

/// Channel and destination addresses: schemes in any case, paths as given, and anything else that
/// looks like a URL refused instead of taken for a folder.
@Suite("Channel and destination addresses")
struct LocationAddressTests {
    let schemes = ["http", "https", "s3", "file"]

    @Test(arguments: [
        ("HTTP://example.com/seeds/", "http://example.com/seeds/"),
        ("S3://bucket/prefix", "s3://bucket/prefix"),
        ("File:///srv/seeds", "file:///srv/seeds"),
        ("https://example.com/x", "https://example.com/x"),
        ("dist", "dist"),
        ("/srv/seeds/", "/srv/seeds/"),
        ("./gs://bucket", "./gs://bucket"),
        ("release:2024", "release:2024"),
    ])
    func addressesThatWork(given: String, read: String) throws {
        #expect(try LocationAddress.normalized(given, schemes: schemes, method: "PUT") == read)
    }

    @Test(arguments: [
        ("gs://bucket/x", "gs:// is not supported"),
        ("ftp://example.com/x", "ftp:// is not supported"),
        ("sftp://example.com/x", "sftp:// is not supported"),
        ("https:/example.com/x", "did you mean https://example.com/x?"),
    ])
    func addressesThatCannotWork(given: String, message: String) {
        let error = #expect(throws: TransferError.self) { try LocationAddress.normalized(given, schemes: schemes, method: "PUT") }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
        #expect(error?.description.contains(given) == true, "names the address: \(error?.description ?? "")")
    }
}

/// What a status says about retrying, and what to do about a server that is not a WebDAV server.
@Suite("Transfer errors")
struct TransferErrorTests {
    @Test func notImplementedIsNotWorthRetryingAndSaysToEnableWebDAV() {
        let error = TransferError(.status(501), method: "MKCOL", url: "http://127.0.0.1:8765/pub/")
        #expect(!error.isTransient)
        #expect(error.description.contains("the server does not accept MKCOL"), "\(error.description)")
        #expect(!error.description.contains("try again later"))
        #expect(TransferError(.status(503), method: "PUT", url: "http://h/").isTransient)
        #expect(!TransferError(.status(505), method: "PUT", url: "http://h/").isTransient)
    }
}
