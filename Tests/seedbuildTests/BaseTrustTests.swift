import Foundation
import SeedTestSupport
import Testing

/// The nightly job as a client of its own channel: a base served over HTTP is verified with the
/// build's keys before anything it contributes is signed, and its numbers are bounded.
@Suite("A verified base")
struct BaseTrustTests {
    private let keys = TemporaryDirectory()

    /// A key pair written by `seedbuild keygen` into its own folder; returns the private and public key paths.
    private func keygen(_ name: String) throws -> (key: String, pub: String) {
        let folder = keys.path(name)
        let result = try runSeedbuild(["keygen", "--out", folder])
        #expect(result.status == 0, "\(result.stderr)")
        return (folder + "/seedbuild-signing.key", folder + "/seedbuild-signing.pub")
    }

    /// Publishes the sample data to `server` as data version `version`, its store changed by `sql`
    /// first (as an attacker with write access to the bucket would), compressed and signed by `signKey`.
    private func publishForged(_ project: SampleProject, to server: NginxServer, version: Int, sql: String? = nil, signKey: String? = nil)
        throws
    {
        let out = "forged-\(version)"
        let built = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", out, "--data-version", "\(version)", "--no-compress"], in: project.url)
        #expect(built.status == 0, "\(built.stderr)")
        let store = project.path("\(out)/postcodes.sqlite")
        if let sql {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
            let edited = try shell("sqlite3 '\(store)' \"\(sql)\"")
            #expect(edited.status == 0, "\(String(decoding: edited.output, as: UTF8.self))")
        }
        let compressed = try runSeedbuild(["compress", store] + (signKey.map { ["--sign-key", $0] } ?? []), in: project.url)
        #expect(compressed.status == 0, "\(compressed.stderr)")
        let published = try runSeedbuild(["publish", out, "--to", server.url], in: project.url)
        #expect(published.status == 0, "\(published.stderr)")
    }

    @Test func aSigningBuildRefusesAnUnsignedBaseUnlessToldOnce() throws {
        let project = try SampleProject()
        let server = try NginxServer()
        let (key, _) = try keygen("ours")
        try publishForged(project, to: server, version: 5)
        let channel = server.url + "postcodes/2/"

        let refused = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "out", "--data-version", "6", "--base", channel, "--sign-key", key], in: project.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains(channel), "names the base: \(refused.stderr)")
        #expect(refused.stderr.contains("no valid signature by a trusted key"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path("out/postcodes.sqlite")), "nothing built on it")

        // The first signed release of a channel that was unsigned until now, said explicitly.
        let told = try runSeedbuild(
            [
                "build", "seeds/postcodes.csv", "--out", "out", "--data-version", "6", "--base", channel, "--sign-key", key,
                "--allow-unsigned-base",
            ], in: project.url)
        #expect(told.status == 0, "\(told.stderr)")
        #expect(told.stderr.contains("warning: --allow-unsigned-base"))

        // An unsigned build may follow an unsigned base.
        let unsigned = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "plain", "--data-version", "6", "--base", channel], in: project.url)
        #expect(unsigned.status == 0, "\(unsigned.stderr)")
        withExtendedLifetime(server) {}
    }

    @Test func aBaseSignedByAnotherKeyIsRefusedUntilThatKeyIsTrusted() throws {
        let project = try SampleProject()
        let server = try NginxServer()
        let ours = try keygen("ours")
        let theirs = try keygen("theirs")
        try publishForged(project, to: server, version: 5, signKey: theirs.key)
        let channel = server.url + "postcodes/2/"

        let refused = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "out", "--data-version", "6", "--base", channel, "--sign-key", ours.key],
            in: project.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("no valid signature by a trusted key"), "\(refused.stderr)")
        // --allow-unsigned-base is for unsigned bases only: a stranger's signature is refused all the same.
        let stillRefused = try runSeedbuild(
            [
                "build", "seeds/postcodes.csv", "--out", "out", "--data-version", "6", "--base", channel, "--sign-key", ours.key,
                "--allow-unsigned-base",
            ],
            in: project.url)
        #expect(stillRefused.status == 65, "\(stillRefused.stderr)")
        #expect(stillRefused.stderr.contains("which is not trusted"), "\(stillRefused.stderr)")

        // A rotated key: the old one trusted for the base, the new one signs.
        let rotated = try runSeedbuild(
            [
                "build", "seeds/postcodes.csv", "--out", "out", "--data-version", "6", "--base", channel, "--sign-key", ours.key,
                "--trusted-key", theirs.pub, "--json",
            ],
            in: project.url)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        withExtendedLifetime(server) {}
    }

    @Test func aForgedHighWaterMarkIsRefusedWithoutAllocatingForIt() throws {
        let project = try SampleProject()
        let server = try NginxServer()
        let (key, _) = try keygen("ours")
        // Signed by the job's own key: even a base it trusts has its numbers bounded.
        try publishForged(
            project, to: server, version: 5, sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775000 WHERE Z_NAME = 'Postcode'",
            signKey: key)
        let channel = server.url + "postcodes/2/"

        let refused = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "out", "--data-version", "6", "--base", channel, "--sign-key", key], in: project.url)
        #expect(refused.status == 65, "no crash: \(refused.status) \(refused.stderr)")
        #expect(
            refused.stderr.contains("says 9223372036854775000 numbers were issued for Postcode, which holds 311 rows"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--no-base"))

        // A mark past the rows but plausible (rows removed over many nights) is followed: new rows go above it.
        let other = try NginxServer()
        try publishForged(
            project, to: other, version: 7, sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 5000 WHERE Z_NAME = 'Postcode'", signKey: key)
        var csv = try String(contentsOfFile: project.path("seeds/postcodes.csv"), encoding: .utf8)
        csv += "ZZ1 1ZZ,E10000011,Hastings,Park,51.5,0.1,2020-01-01\n"
        try csv.write(toFile: project.path("seeds/postcodes.csv"), atomically: true, encoding: .utf8)
        let followed = try runSeedbuild(
            [
                "build", "seeds/postcodes.csv", "--out", "out", "--data-version", "8", "--base", other.url + "postcodes/2/", "--sign-key",
                key,
            ], in: project.url)
        #expect(followed.status == 0, "\(followed.stderr)")
        let added = try shell(
            "sqlite3 '\(project.path("out/postcodes.sqlite"))' \"SELECT Z_PK FROM ZPOSTCODE WHERE ZPOSTCODE = 'ZZ1 1ZZ'\"")
        #expect(String(decoding: added.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "5001")
        withExtendedLifetime((server, other)) {}
    }

    @Test func aBareStoreIsNoBaseForASigningBuild() throws {
        let project = try SampleProject()
        let (key, _) = try keygen("ours")
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv", "--out", "first", "--data-version", "1"], in: project.url).status == 0)
        let refused = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "out", "--data-version", "2", "--base", "first/postcodes.sqlite", "--sign-key", key],
            in: project.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("a bare store or artifact cannot be verified"), "\(refused.stderr)")
        // Its manifest, signed by the job's key, is a verified base.
        #expect(try runSeedbuild(["compress", "first/postcodes.sqlite", "--sign-key", key], in: project.url).status == 0)
        let followed = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "out", "--data-version", "2", "--base", "first/manifest.json", "--sign-key", key],
            in: project.url)
        #expect(followed.status == 0, "\(followed.stderr)")
    }

    @Test func aListedDeltaThatIsNotTheOneSignedIsLeftOut() throws {
        let project = try SampleProject()
        let (key, _) = try keygen("ours")
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1", "--sign-key", key], in: project.url).status == 0)
        try project.removeFirstPostcode()
        let second = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--sign-key", key], in: project.url)
        #expect(second.status == 0, "\(second.stderr)")
        // The bucket's copy of the delta from 1 replaced by other bytes; the signed manifest still lists the original.
        let folder = project.path("dist/postcodes/2/deltas")
        let listed = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(listed.count == 1)
        for name in listed {
            let path = folder + "/" + name
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let forged = try shell("printf 'forged' | gzip -c > '\(path)'")
            #expect(forged.status == 0)
        }
        try project.removeFirstPostcode()
        let third = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "3", "--sign-key", key, "--json"], in: project.url)
        #expect(third.status == 0, "\(third.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(third.stdout.utf8)) as? [String: Any])
        let built = try #require(report["build"] as? [String: Any])
        #expect(
            (built["deltas"] as? [[String: Any]])?.compactMap { $0["fromDataVersion"] as? Int } == [2], "only the one-hop delta is signed")
        let leftOut = try #require(built["deltasLeftOut"] as? [[String: Any]])
        #expect(leftOut.first?["fromDataVersion"] as? Int == 1)
        let reason = try #require(leftOut.first?["reason"] as? String)
        #expect(reason.contains("(the base's)"), "\(reason)")
    }
}
