import Foundation
import SeedStore
import SeedTestSupport
import Testing

@Suite("seedbuild inspect, compress and keygen")
struct InspectCommandTests {
    private func builtProject() throws -> SampleProject {
        let project = try SampleProject()
        let result = try runSeedbuild(
            ["seeds/postcodes.csv", "--data-version", "5"], in: project.url, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(result.status == 0, "\(result.stderr)")
        return project
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func inspectsAllThreeFileKinds() throws {
        let project = try builtProject()
        let store = try runSeedbuild(["inspect", "build/seed/postcodes.sqlite", "--json"], in: project.url)
        #expect(store.status == 0, "\(store.stderr)")
        let object = try json(store.stdout)
        // The seed is in Core Data's layout: its metadata is Z_METADATA's property list, every key printed.
        let rows = String(
            decoding: try shell("sqlite3 '\(project.path("build/seed/postcodes.sqlite"))' 'SELECT count(*) FROM Z_METADATA'").output,
            as: UTF8.self)
        #expect(rows.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        let metadataKeys = try StoreMetadata.read(at: URL(fileURLWithPath: project.path("build/seed/postcodes.sqlite"))).values.keys
        #expect(Set(object.keys) == Set(metadataKeys + ["inspectedFile"]))
        #expect(Set(["contentDigest", "dataVersion", "rowCounts", "sources", "buildTime"]).isSubset(of: object.keys))
        #expect((object["versionHashes"] as? [String: String])?.values.allSatisfy { $0.count == 64 } == true)
        #expect(object["dataVersion"] as? Int == 5)

        let compressed = try json(try runSeedbuild(["inspect", "build/seed/postcodes.sqlite.gz", "--json"], in: project.url).stdout)
        let file = try #require(compressed["inspectedFile"] as? [String: Any])
        #expect(file["kind"] as? String == "gzip-compressed SQLite store")
        let storeFile = try #require(object["inspectedFile"] as? [String: Any])
        #expect(file["storeSHA256"] as? String == storeFile["sha256"] as? String)
        #expect(compressed["contentDigest"] as? String == object["contentDigest"] as? String)

        let manifest = try runSeedbuild(["inspect", "build/seed/manifest.json"], in: project.url)
        #expect(manifest.status == 0)
        #expect(manifest.stdout.contains("artifact: {"))
        let text = try runSeedbuild(["inspect", "build/seed/postcodes.sqlite"], in: project.url).stdout
        #expect(text.contains("modelName: PostCodesModel") && text.contains("  postcodes.csv → Postcode: 311 read, 311 loaded, 0 rejected"))

        // The release's digest, recomputed from the store's rows, is the one its manifest signs.
        let manifestJSON = try json(try runSeedbuild(["inspect", "build/seed/manifest.json", "--json"], in: project.url).stdout)
        let signed = try #require(manifestJSON["setDigest"] as? String)
        #expect(storeFile["setDigest"] as? String == signed)
        #expect(file["setDigest"] as? String == signed)
        #expect(text.contains("set digest (every table and the schema, as a manifest's setDigest): \(signed.prefix(40))…"))
        #expect(manifest.stdout.contains("setDigest: \(signed.prefix(40))… (\(signed.count) characters"))
    }

    @Test func badFilesExit65WithAReason() throws {
        let project = try builtProject()
        project.write("notes.txt", "hello")
        let text = try runSeedbuild(["inspect", "notes.txt"], in: project.url)
        #expect(text.status == 65 && text.stderr.contains("not an SQLite database"))

        _ = try shell("sqlite3 '\(project.path("other.sqlite"))' 'CREATE TABLE t(x)'").output
        let other = try runSeedbuild(["inspect", "other.sqlite"], in: project.url)
        #expect(other.status == 65 && other.stderr.contains("not a seed store: application_id is 0x00000000"))

        let artifact = try Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/postcodes.sqlite.gz")))
        try artifact.prefix(artifact.count / 2).write(to: URL(fileURLWithPath: project.path("cut.sqlite.gz")))
        let truncated = try runSeedbuild(["inspect", "cut.sqlite.gz"], in: project.url)
        #expect(truncated.status == 65 && truncated.stderr.contains("ends early"))

        #expect(try runSeedbuild(["inspect", "missing.sqlite"], in: project.url).status == 66)
    }

    @Test func setKeysOnAStoreOnly() throws {
        let project = try builtProject()
        let set = try runSeedbuild(
            ["inspect", "build/seed/postcodes.sqlite", "--set", "region=south", "--set", "reviewed={\"by\":\"ops\"}", "--json"],
            in: project.url)
        #expect(set.status == 0, "\(set.stderr)")
        let object = try json(set.stdout)
        #expect(object["region"] as? String == "south")
        #expect((object["reviewed"] as? [String: String]) == ["by": "ops"])
        let mode =
            try FileManager.default.attributesOfItem(atPath: project.path("build/seed/postcodes.sqlite"))[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o444, "still read-only")

        let managed = try runSeedbuild(["inspect", "build/seed/postcodes.sqlite", "--set", "storeUUID=x"], in: project.url)
        #expect(managed.status == 65 && managed.stderr.contains("managed by the store"))
        let gz = try runSeedbuild(["inspect", "build/seed/postcodes.sqlite.gz", "--set", "a=b"], in: project.url)
        #expect(gz.status == 65 && gz.stderr.contains("metadata of a compressed store cannot be changed"))

        // Re-package after --set: the new artifact carries the key.
        let compress = try runSeedbuild(["compress", "build/seed/postcodes.sqlite"], in: project.url)
        #expect(compress.status == 0, "\(compress.stderr)")
        let repacked = try json(try runSeedbuild(["inspect", "build/seed/postcodes.sqlite.gz", "--json"], in: project.url).stdout)
        #expect(repacked["region"] as? String == "south")
    }

    @Test func keygenThenSignedBuild() throws {
        let project = try SampleProject()
        let keygen = try runSeedbuild(["keygen", "--out", "keys"], in: project.url)
        #expect(keygen.status == 0, "\(keygen.stderr)")
        #expect(keygen.stdout.contains("key id "))
        let again = try runSeedbuild(["keygen", "--out", "keys"], in: project.url)
        #expect(again.status == 73, "never overwrites a key")
        let build = try runSeedbuild(["seeds/postcodes.csv", "--sign-key", "keys/seedbuild-signing.key"], in: project.url)
        #expect(build.status == 0, "\(build.stderr)")
        let manifest = try json(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/manifest.json"))), as: UTF8.self))
        let signature = try #require(manifest["signature"] as? [String: String])
        #expect(signature["algorithm"] == "Ed25519" && signature["keyId"]?.count == 16)
    }

    @Test func reproducibleArtifacts() throws {
        let first = try builtProject()
        let second = try builtProject()
        for file in ["build/seed/postcodes.sqlite", "build/seed/postcodes.sqlite.gz"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: first.path(file)))
            let b = try Data(contentsOf: URL(fileURLWithPath: second.path(file)))
            #expect(a == b, "\(file)")
        }
        // The manifest is fresh: only when it was written and when it expires may differ.
        func manifest(_ project: SampleProject) throws -> NSDictionary {
            let object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/manifest.json"))))
                as? [String: Any]
            return (object ?? [:]).filter { $0.key != "issued" && $0.key != "expires" } as NSDictionary
        }
        #expect(try manifest(first) == manifest(second))
    }
}
