import Foundation
import Testing

@testable import SeedPipeline

@Suite("S3 Signature Version 4")
struct S3SignerTests {
    /// The "GET Object" example of AWS's Signature Version 4 documentation for S3.
    @Test func awsGetObjectExample() {
        let signer = S3Signer(
            credentials: .init(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1")
        let headers = signer.sign(
            method: "GET", path: "/test.txt",
            headers: ["Host": "examplebucket.s3.amazonaws.com", "Range": "bytes=0-9"],
            payloadSHA256: S3Signer.emptyPayloadSHA256, date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(
            headers["Authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
        #expect(headers["x-amz-date"] == "20130524T000000Z")
    }

    @Test func pathSegmentsAndQueryAreEncoded() {
        #expect(S3Signer.encode("a b/c~d") == "a%20b%2Fc~d")
        #expect(S3Signer.encode("list-type") == "list-type")
    }
}
