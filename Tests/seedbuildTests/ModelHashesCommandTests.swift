import Foundation
import SeedTestSupport
import Testing

@Suite("seedbuild model hashes: Core Data's hashes")
struct ModelHashesCommandTests {
    @Test func sampleModelsGolden() throws {
        // The merged sample models, as an app's coordinator merges them; pinned so any change to the
        // hash algorithm or the sample models is seen (the algorithm itself is checked against Apple's
        // output in SeedStoreTests' Core Data oracles).
        let result = try runSeedbuild([
            "model", "hashes", "schemas/PostCodesModel.xcdatamodeld", "schemas/UserModel.xcdatamodeld", "--base64",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
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
        let oracle = OracleFixtures.url("alemar11__CoreDataPlus/SampleModel3")
        let result = try runSeedbuild([
            "model", "hashes", oracle.appendingPathComponent("SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel").path, "--base64",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try Data(contentsOf: oracle.appendingPathComponent("Fixtures/SampleModel3.momd/VersionInfo.plist"))
        let plist = try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any]
        let versions = try #require(plist?["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        let apple = try #require(versions["SampleModel3"])
        let expected = apple.keys.sorted().map { "\(apple[$0]!.base64EncodedString())  \($0)" }.joined(separator: "\n") + "\n"
        #expect(result.stdout == expected)
    }
}

@Suite("seedbuild model hashes of a model cached in a Core Data store")
struct CachedModelHashesTests {
    @Test(
        arguments: OracleFixtures.present([
            "alemar11__CoreDataPlus/SampleModel2/Fixtures/SampleModel2_V2.sqlite",
            "wireapp__wire-ios-data-model/stores/store2-52-0.wiredatabase",
        ]))
    func storeModelHashesEqualTheStampedOnes(_ path: String) throws {
        let store = OracleFixtures.url(path).path
        let hashes = try runSeedbuild(["model", "hashes", store, "--json"])
        #expect(hashes.status == 0, "\(hashes.stderr)")
        let entities =
            (try JSONSerialization.jsonObject(with: Data(hashes.stdout.utf8)) as? [String: Any])?["entities"] as? [String: [String: String]]
            ?? [:]
        let inspected = try runSeedbuild(["inspect", store, "--json"])
        let stamped =
            (try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])?["versionHashes"] as? [String: String]
            ?? [:]
        #expect(!stamped.isEmpty && entities.mapValues { $0["hex"] ?? "" } == stamped)
    }
}

@Suite("seedbuild inspect on stores Apple's Core Data wrote")
struct InspectCoreDataStoreTests {
    /// Every oracle store in place: CoreDataPlus's five on every clone, seven with the fetched ones.
    @Test func everyOracleStoreInspects() throws {
        let oracles = OracleFixtures.root
        let stores = (FileManager.default.enumerator(atPath: oracles.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".sqlite") || $0.hasSuffix(".wiredatabase") }
        #expect(stores.count >= 5, "CoreDataPlus's stores are in the repository")
        for store in stores.sorted() {
            let result = try runSeedbuild(["inspect", oracles.appendingPathComponent(store).path, "--json"])
            #expect(result.status == 0, "\(store): \(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let hashes = object?["versionHashes"] as? [String: String] ?? [:]
            #expect(!hashes.isEmpty && hashes.values.allSatisfy { $0.count == 64 }, "\(store)")
            #expect(object?["storeUUID"] is String, "\(store)")
        }
    }
}
