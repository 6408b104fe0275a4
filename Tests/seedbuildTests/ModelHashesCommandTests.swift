import Foundation
import Testing

@Suite("seedbuild model hashes: Core Data's hashes")
struct ModelHashesCommandTests {
    @Test func sampleModelsGolden() throws {
        // The merged sample models, as an app's coordinator merges them; pinned so any change to the
        // hash algorithm or the sample models is seen (the algorithm itself is checked against Apple's
        // output in SeedStoreTests' Core Data oracles).
        let result = try runSeedbuild(["model", "hashes", "schemas/PostCodesModel.xcdatamodeld", "schemas/UserModel.xcdatamodeld", "--base64"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            ZQc6hV3uiDmwzlnxEAtxaJR2aPmz8dWx0Om6Un9EIbQ=  County
            oPX62Z/f2RB8nkmEHY4w8g+iz0fDEGCEzU42sGfItuM=  Postcode
            gnVk+YPwYBmmfWwz79lrUAwKfbQDsnsS2CnpN/BUyCI=  Rating

            """)
        let json = try runSeedbuild(["model", "hashes", "schemas/PostCodesModel.xcdatamodeld", "schemas/UserModel.xcdatamodeld", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["versionChecksum"] as? String == "AFyyylVKWGtyWXehGUH/a6tNVaMJLePaoYCVgPv5t4U=")
    }

    @Test func printsWhatApplesCompilerWrote() throws {
        // CoreDataPlus's SampleModel3: Xcode's contents and the VersionInfo.plist momc wrote from it.
        let oracle = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/coredata/oracles/alemar11__CoreDataPlus/SampleModel3")
        let result = try runSeedbuild(["model", "hashes", oracle.appendingPathComponent("SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel").path, "--base64"])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try Data(contentsOf: oracle.appendingPathComponent("Fixtures/SampleModel3.momd/VersionInfo.plist"))
        let plist = try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any]
        let versions = try #require(plist?["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        let apple = try #require(versions["SampleModel3"])
        let expected = apple.keys.sorted().map { "\(apple[$0]!.base64EncodedString())  \($0)" }.joined(separator: "\n") + "\n"
        #expect(result.stdout == expected)
    }
}
