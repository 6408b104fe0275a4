import Foundation
import SeedInstall
import Testing

/// The nightly job's deltas as an operator sees them: `--deltas`, `--delta-max-share`, `seedbuild.json`,
/// and what `seedbuild run --json` reports.
@Suite("Deltas on the command line")
struct DeltaCommandTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theNightlyJobPublishesDeltasAndReportsThem() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        try project.removeFirstPostcode()
        let second = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2"], in: project.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("delta from 1: postcodes-from-1.delta.gz, "), "\(second.stdout)")
        #expect(second.stdout.contains("delta from 1: dist/postcodes/2/deltas/"), "the publish says where it went")
        try project.removeFirstPostcode()
        let third = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "3", "--json"], in: project.url)
        #expect(third.status == 0, "\(third.stderr)")
        let report = try json(third.stdout)
        let built = try #require(report["build"] as? [String: Any])
        let deltas = try #require(built["deltas"] as? [[String: Any]])
        #expect(deltas.compactMap { $0["fromDataVersion"] as? Int } == [2, 1])
        #expect(deltas.allSatisfy { ($0["shareOfArtifact"] as? Double ?? 1) < 0.5 && ($0["bytes"] as? Int ?? 0) > 0 })
        #expect((built["deltasLeftOut"] as? [Any])?.isEmpty == true)
        let published = try #require((report["publish"] as? [String: Any])?["deltas"] as? [[String: Any]])
        #expect(published.compactMap { $0["fromDataVersion"] as? Int } == [2, 1])
        for delta in published {
            #expect(FileManager.default.fileExists(atPath: project.path(try #require(delta["url"] as? String))))
        }

        // The size rule from the command line: both left out, each with a warning naming it.
        try project.removeFirstPostcode()
        let strict = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "4", "--delta-max-share", "0.01%"], in: project.url)
        #expect(strict.status == 0, "\(strict.stderr)")
        #expect(!strict.stdout.contains("delta from"))
        for version in [3, 2] {
            #expect(strict.stderr.contains("warning: no delta from \(version): "), "\(strict.stderr)")
        }
        #expect(strict.stderr.contains("the size rule allows (--delta-max-share)"))

        // seedbuild.json sets K for the job.
        let settings = project.path("seedbuild.json")
        let text = try String(contentsOfFile: settings, encoding: .utf8)
        try text.replacingOccurrences(of: "\"publish\": \"dist\"", with: "\"publish\": \"dist\", \"deltas\": 1").write(
            toFile: settings, atomically: true, encoding: .utf8)
        try project.removeFirstPostcode()
        let one = try json(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "5", "--json"], in: project.url).stdout)
        #expect(((one["build"] as? [String: Any])?["deltas"] as? [[String: Any]])?.compactMap { $0["fromDataVersion"] as? Int } == [4])
    }

    /// Postcode → Z_PK, and the store's UUID, of an installed store.
    private func identity(_ store: String) throws -> (numbers: [String: Int64], uuid: String?, digest: String?) {
        let connection = try StoreConnection(path: store, mode: .immutable)
        var numbers: [String: Int64] = [:]
        for row in try connection.rows("SELECT ZPOSTCODE, Z_PK FROM ZPOSTCODE") {
            if case .text(let code) = row[0], case .integer(let number) = row[1] { numbers[code] = number }
        }
        let metadata = try StoreMetadata.read(at: URL(fileURLWithPath: store))
        return (numbers, metadata.storeUUID, metadata.contentDigest)
    }

    /// Two runs of the nightly job into one channel, then an app holding the first release fetches
    /// again: the second comes as a delta, far smaller than the artifact; the installed store holds
    /// the second release's rows exactly (its content digest, recomputed, is the build's), every
    /// surviving postcode keeps its number and the store its UUID.
    @Test func twoNightsThenAFetchFromTheFirstArriveAsADelta() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        let fetch = ["fetch", "dist/postcodes/2/", "--to", "app", "--allow-unsigned", "--json"]
        let first = try json(try runSeedbuild(fetch, in: project.url).stdout)
        #expect(first["via"] as? String == "full")
        let before = try identity(project.path(try #require(first["storePath"] as? String)))

        // The next night: a postcode removed, one changed, one added.
        let path = project.path("seeds/postcodes.csv")
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        lines.remove(at: 2)
        var changed = lines[5].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let latitude = try #require(header.firstIndex(of: "latitude"))
        changed[latitude] = "51.5"
        lines[5] = changed.joined(separator: ",")
        var added = lines[3].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        added[0] = "ZZ9 9ZZ"
        lines.insert(added.joined(separator: ","), at: 4)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let night = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--json"], in: project.url)
        #expect(night.status == 0, "\(night.stderr)")
        let built = try #require(try json(night.stdout)["build"] as? [String: Any])
        let artifactBytes = try #require((built["artifact"] as? [String: Any])?["bytes"] as? Int)

        let second = try json(try runSeedbuild(fetch, in: project.url).stdout)
        #expect(second["via"] as? String == "delta", "\(second)")
        #expect(second["fallback"] == nil || second["fallback"] is NSNull)
        let downloaded = try #require(second["downloadedBytes"] as? Int)
        // Exactly the pointer, the manifest and the delta: never the artifact.
        let channel = project.path("dist/postcodes/2") + "/"
        let size = { (path: String) throws -> Int in
            (try FileManager.default.attributesOfItem(atPath: channel + path)[.size] as? NSNumber)?.intValue ?? -1
        }
        let deltaBytes = try #require((built["deltas"] as? [[String: Any]])?.first?["bytes"] as? Int)
        #expect(
            downloaded == (try size("latest.json")) + (try size("manifests/2.json")) + deltaBytes,
            "\(downloaded) bytes by delta, the artifact has \(artifactBytes)")
        let installed = project.path(try #require(second["storePath"] as? String))
        let after = try identity(installed)
        let published = try identity(project.path("build/seed/postcodes.sqlite"))
        #expect(after.digest == published.digest && after.numbers == published.numbers, "exactly the second release's rows")
        #expect(after.uuid == before.uuid && after.uuid != nil)
        let survivors = before.numbers.keys.filter { after.numbers[$0] != nil }
        #expect(survivors.count == before.numbers.count - 1)
        for code in survivors { #expect(after.numbers[code] == before.numbers[code], "\(code) kept its number") }
        #expect(try #require(after.numbers["ZZ9 9ZZ"]) > before.numbers.values.max() ?? 0)
        // Recomputed from its rows, the installed store's digest is the one it states.
        #expect(try DeltaApplier.recomputedContentDigest(of: installed) == after.digest)
    }

    @Test func deltaOptionsThatCannotApplyAreRefused() throws {
        let project = try SampleProject()
        let noBase = try runSeedbuild(["build", "seeds/postcodes.csv", "--deltas", "3"], in: project.url)
        #expect(
            noBase.status == 64 && noBase.stderr.contains("--deltas applies to a build following a base: give --base"), "\(noBase.stderr)")
        let both = try runSeedbuild(["seeds/postcodes.csv", "--no-base", "--delta-max-share", "0.3"], in: project.url)
        #expect(
            both.status == 64 && both.stderr.contains("--delta-max-share applies to a build following a base, and --no-base follows none"),
            "\(both.stderr)")
        let share = try runSeedbuild(["seeds/postcodes.csv", "--delta-max-share", "150%"], in: project.url)
        #expect(
            share.status == 64
                && share.stderr.contains(
                    "--delta-max-share takes a fraction more than 0 and at most 1 (0.5) or a percentage (50%), got \"150%\""),
            "\(share.stderr)")
        let negative = try runSeedbuild(["seeds/postcodes.csv", "--deltas=-1"], in: project.url)
        #expect(negative.status == 64 && negative.stderr.contains("--deltas must be 0 (none) or more"), "\(negative.stderr)")
        try #"{"model": "schemas/PostCodesModel.xcdatamodeld", "deltaMaxShare": 2}"#.write(
            toFile: project.path("seedbuild.json"), atomically: true, encoding: .utf8)
        let file = try runSeedbuild(["seeds/postcodes.csv"], in: project.url)
        #expect(file.status == 65 && file.stderr.contains("\"deltaMaxShare\" must be a number more than 0 and at most 1"), "\(file.stderr)")
    }
}
