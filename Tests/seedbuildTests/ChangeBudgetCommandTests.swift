import Foundation
import SeedTestSupport
import Testing

/// The change budget and `seedbuild diff` as an operator meets them: a truncated export held by the
/// nightly job (exit 65, nothing published), `--accept-change`, `changeBudget` in seedbuild.json, and
/// the per-entity report between any two releases.
@Suite("The change budget and seedbuild diff on the command line")
struct ChangeBudgetCommandTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// Rewrites the sample's postcodes file, keeping the header and the rows `keep` selects (by row index).
    private func editPostcodes(_ project: SampleProject, _ edit: (Int, String) -> String?) throws {
        let path = project.path("seeds/postcodes.csv")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let kept = lines.dropFirst().enumerated().compactMap { edit($0.offset, $0.element) }
        try ([lines[0]] + kept).joined(separator: "\n").appending("\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Every file under a folder with its bytes, but the output folder's lock (which names the last process).
    private func files(_ project: SampleProject, under folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = project.path(folder)
        let names = try #require(FileManager.default.enumerator(atPath: root), "\(root) is missing")
        for case let name as String in names {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder), !isFolder.boolValue,
                name != ".seedbuild.lock"
            {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + name))
            }
        }
        return files
    }

    /// One entity's object from a change report's JSON.
    private func entity(_ changes: Any?, _ name: String) throws -> [String: Any] {
        let entities = try #require((changes as? [String: Any])?["entities"] as? [[String: Any]], "\(String(describing: changes))")
        return try #require(entities.first { $0["entity"] as? String == name })
    }

    @Test func aHalfExportIsHeldAndNothingIsPublishedUntilAccepted() throws {
        let project = try SampleProject()
        let first = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url)
        #expect(first.status == 0, "\(first.stderr)")
        let (published, output) = (try files(project, under: "dist"), try files(project, under: "build/seed"))
        #expect(published.keys.contains("postcodes/2/latest.json"))

        try editPostcodes(project) { index, line in index % 2 == 0 ? line : nil }
        let held = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2"], in: project.url)
        #expect(held.status == 65, "\(held.stderr)")
        #expect(held.stderr.contains("the release is held: its changes against the base (data version 1, "), "\(held.stderr)")
        #expect(
            held.stderr.contains(
                "Postcode: 311 → 156 rows; 0 added, 155 removed (49.8%), 0 changed (0.0%) — 49.8% removed, more than the 5.0% allowed"),
            "\(held.stderr)")
        #expect(held.stderr.contains("    removed: BN18 8ZU, "), "the postcodes that went, by their key")
        #expect(held.stderr.contains("rerun with --accept-change") && held.stderr.contains("\"changeBudget\""))
        #expect(!held.stdout.contains("published"))
        #expect(try files(project, under: "dist") == published, "nothing is published")
        #expect(try files(project, under: "build/seed") == output, "the output folder keeps its release")

        // The JSON report of the default command and of build: the stage held, with every entity's changes.
        let run = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--json"], in: project.url)
        #expect(run.status == 65)
        let report = try json(run.stdout)
        #expect((report["stages"] as? [[String: Any]])?.last?["status"] as? String == "held")
        let postcode = try entity(report["changes"], "Postcode")
        #expect(postcode["removed"] as? Int == 155 && postcode["baseRows"] as? Int == 311 && postcode["rows"] as? Int == 156)
        #expect((postcode["samples"] as? [String: Any])?["removed"] as? [String] != [])
        #expect(try entity(report["changes"], "County")["changed"] as? Int == 0)
        let build = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--base", "dist/postcodes/2/", "--data-version", "2", "--json"], in: project.url)
        #expect(build.status == 65)
        let buildReport = try json(build.stdout)
        #expect(buildReport["outcome"] as? String == "held" && buildReport["exitCode"] as? Int == 65)
        #expect(try entity(buildReport["changes"], "Postcode")["removed"] as? Int == 155)
        #expect(try files(project, under: "build/seed") == output)

        let accepted = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--accept-change", "--json"], in: project.url)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let acceptedReport = try json(accepted.stdout)
        #expect(try entity((acceptedReport["build"] as? [String: Any])?["changes"], "Postcode")["removed"] as? Int == 155)
        #expect((acceptedReport["publish"] as? [String: Any])?["dataVersion"] as? Int == 2)
    }

    @Test func aBudgetPerEntityInTheProjectFile() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        try editPostcodes(project) { index, line in index % 2 == 0 ? line : nil }
        let settings = project.path("seedbuild.json")
        let text = try String(contentsOfFile: settings, encoding: .utf8)
        try text.replacingOccurrences(
            of: "\"publish\": \"dist\"", with: "\"publish\": \"dist\", \"changeBudget\": {\"entities\": {\"Postcode\": {\"removed\": 0.5}}}"
        )
        .write(toFile: settings, atomically: true, encoding: .utf8)
        let second = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2"], in: project.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stdout.contains(
                "changes against the base (data version 1):\n  County: 12 → 12 rows; 0 added, 0 removed, 0 changed\n  Postcode: 311 → 156 rows; 0 added, 155 removed, 0 changed"
            ), "\(second.stdout)")

        try text.replacingOccurrences(of: "\"publish\": \"dist\"", with: "\"publish\": \"dist\", \"changeBudget\": {\"removed\": \"half\"}")
            .write(toFile: settings, atomically: true, encoding: .utf8)
        let wrong = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "3"], in: project.url)
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("seedbuild.json: \"changeBudget.removed\" must be a share from 0 to 1"), "\(wrong.stderr)")
    }

    @Test func diffComparesStoresManifestsAndAChannel() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed"), toPath: project.path("night1"))
        // Night 2: the second postcode goes, the first three rows after it move.
        try editPostcodes(project) { index, line in
            guard index != 1 else { return nil }
            guard (2...4).contains(index) else { return line }
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[4] = "52.5"
            return fields.joined(separator: ",")
        }
        let second = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2"], in: project.url)
        #expect(second.status == 0, "\(second.stderr)")
        let line = "Postcode: 311 → 310 rows; 0 added, 1 removed (0.3%), 3 changed (1.0%)"

        let stores = try runSeedbuild(["diff", "night1/postcodes.sqlite", "build/seed/postcodes.sqlite"], in: project.url)
        #expect(stores.status == 0, "\(stores.stderr)")
        #expect(
            stores.stdout.contains(line) && stores.stdout.contains("County: 12 → 12 rows; 0 added, 0 removed (0.0%), 0 changed (0.0%)"),
            "\(stores.stdout)")
        #expect(stores.stdout.contains("  removed: BN18 8ZU\n"), "\(stores.stdout)")

        let manifests = try runSeedbuild(["diff", "night1/manifest.json", "build/seed/manifest.json", "--json"], in: project.url)
        #expect(manifests.status == 0, "\(manifests.stderr)")
        let report = try json(manifests.stdout)
        #expect(report["fromDataVersion"] as? Int == 1 && report["toDataVersion"] as? Int == 2)
        let postcode = try entity(report, "Postcode")
        #expect((postcode["added"] as? Int, postcode["removed"] as? Int, postcode["changed"] as? Int) == (0, 1, 3))

        // A channel alone: its previous release against its current one, with the changed rows.
        let channel = try runSeedbuild(["diff", "dist/postcodes/2/", "--rows", "2"], in: project.url)
        #expect(channel.status == 0, "\(channel.stderr)")
        #expect(channel.stdout.contains(line), "\(channel.stdout)")
        #expect(channel.stdout.components(separatedBy: "    ZLATITUDE  ").count == 3, "two changed rows shown: \(channel.stdout)")
        #expect(channel.stdout.contains("  →  52.5\n"), "\(channel.stdout)")
        let versions = try runSeedbuild(["diff", "dist/postcodes/2/@1", "dist/postcodes/2/", "--rows", "1", "--json"], in: project.url)
        #expect(versions.status == 0, "\(versions.stderr)")
        let rows = try #require(try entity(try json(versions.stdout), "Postcode")["changedRows"] as? [[String: Any]])
        #expect(rows.count == 1)
        let columns = try #require(rows.first?["columns"] as? [[String: Any]])
        #expect(columns.first?["name"] as? String == "ZLATITUDE" && columns.first?["new"] as? String == "52.5", "\(columns)")

        let missing = try runSeedbuild(["diff", "dist/postcodes/2/@7", "dist/postcodes/2/"], in: project.url)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("the channel does not publish data version 7; it publishes 2, 1"), "\(missing.stderr)")
    }

    @Test func diffReadsAChannelOverHTTP() throws {
        let project = try SampleProject()
        let server = try NginxServer()
        defer { withExtendedLifetime(server) {} }
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1", "--publish", server.url], in: project.url).status == 0)
        try editPostcodes(project) { index, line in index == 0 ? nil : line }
        let second = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--publish", server.url], in: project.url)
        #expect(second.status == 0, "\(second.stderr)")
        let channel = server.url + "postcodes/2/"
        for arguments in [
            ["diff", channel], ["diff", channel + "@1", channel + "@2"], ["diff", channel + "@1", "build/seed/postcodes.sqlite"],
        ] {
            let diff = try runSeedbuild(arguments, in: project.url)
            #expect(diff.status == 0, "\(arguments): \(diff.stderr)")
            #expect(
                diff.stdout.contains("Postcode: 311 → 310 rows; 0 added, 1 removed (0.3%), 0 changed (0.0%)\n  removed: BN15 3XA"),
                "\(arguments): \(diff.stdout)")
        }
    }
}
