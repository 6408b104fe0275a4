import Crypto
import Foundation

/// AWS Signature Version 4 for S3 requests (path-style), as the
/// [S3 API reference](https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html) specifies.
struct S3Signer: Sendable {
    struct Credentials: Sendable {
        var accessKey: String
        var secretKey: String
        var sessionToken: String?
    }

    let credentials: Credentials
    let region: String

    /// Headers to add to a request: `x-amz-date`, `x-amz-content-sha256`, the session token, `Authorization`.
    /// - Parameters:
    ///   - headers: the other headers to sign (names any case), `Host` included.
    ///   - payloadSHA256: lowercase hex SHA-256 of the body.
    func sign(
        method: String, path: String, query: [(String, String)] = [], headers: [String: String], payloadSHA256: String, date: Date
    ) -> [String: String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let amzDate = formatter.string(from: date)
        let day = String(amzDate.prefix(8))
        var signed = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value.trimmingCharacters(in: .whitespaces)) })
        signed["x-amz-date"] = amzDate
        signed["x-amz-content-sha256"] = payloadSHA256
        if let token = credentials.sessionToken { signed["x-amz-security-token"] = token }
        let names = signed.keys.sorted()
        let canonicalQuery = query.map { (Self.encode($0.0), Self.encode($0.1)) }.sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(
            separator: "&")
        let canonicalRequest = [
            method,
            path.split(separator: "/", omittingEmptySubsequences: false).map { Self.encode(String($0)) }.joined(separator: "/"),
            canonicalQuery,
            names.map { "\($0):\(signed[$0]!)\n" }.joined(),
            names.joined(separator: ";"),
            payloadSHA256,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/s3/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))].joined(
            separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretKey)".utf8))
        for part in [day, region, "s3", "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        var result = signed.filter { $0.key.hasPrefix("x-amz-") }
        result["Authorization"] =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKey)/\(scope), SignedHeaders=\(names.joined(separator: ";")), Signature=\(signature)"
        return result
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}
