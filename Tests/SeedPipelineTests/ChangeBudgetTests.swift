import Foundation
import SeedInstall
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// A build that follows a base counts each entity's added, removed and changed rows against it, and
/// holds a release past the change budget before anything in its output folder is replaced.
@Suite("The change budget")
struct ChangeBudgetTests {
    let directory = TemporaryDirectory()
    var nights: DeltaNights { DeltaNights(directory: directory) }

    /// Night 1's export with only every other postcode: a failed upstream export cut to half.
    private static func halfExport() -> String {
        let lines = DeltaNights.postcodes(night: 1).split(separator: "\n")
        return ([lines[0]] + lines.dropFirst().enumerated().filter { $0.offset % 2 == 0 }.map(\.element)).joined(separator: "\n") + "\n"
    }

    /// Builds `postcodes` as data version 2 into `out-1`, following its release 1, and packages it.
    private func buildOverNightOne(
        _ postcodes: String, deltas: Int? = nil, project: ProjectFile? = nil, configure: (inout BuildRequest) -> Void = { _ in }
    ) throws -> BuiltStore {
        writeTestInputs(directory, postcodes: postcodes)
        var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
        options.model = directory.path("model.json")
        options.outputDirectory = directory.path("out-1")
        options.dataVersion = 2
        options.base = directory.path("out-1/manifest.json")
        options.deltaCount = deltas
        var (request, _) = try options.resolve(project: project)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        configure(&request)
        let built = try SeedBuilder().build(request)
        _ = try Packager().package(built)
        return built
    }

    /// Every file of the output folder with its bytes.
    private func outputFiles() throws -> [String: Data] {
        let folder = directory.path("out-1")
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return files
    }

    @Test func anExportCutInHalfIsHeldAndTheOutputFolderKeepsItsRelease() throws {
        _ = try nights.build("1", night: 1, base: nil)
        let before = try outputFiles()
        #expect(before.keys.contains("manifest.json") && before.keys.contains("postcodes.sqlite.gz"))
        let held = try #require(throws: ChangeBudgetExceeded.self) { try buildOverNightOne(Self.halfExport()) }
        let postcode = try #require(held.report["Postcode"])
        #expect((postcode.baseRows, postcode.rows, postcode.removed, postcode.added, postcode.changed) == (1_500, 750, 750, 0, 0))
        #expect(postcode.share(.removed) == 0.5)
        // Sample keys are the entity's unique key (the postcode), of rows that went.
        let removed = try #require(postcode.samples[.removed])
        #expect(removed.count == ChangeReport.sampleCount)
        #expect(
            removed.allSatisfy { !Self.halfExport().contains("\n\($0),") && DeltaNights.postcodes(night: 1).contains("\n\($0),") },
            "\(removed)")
        #expect(held.breaches.map(\.entity) == ["Postcode"])
        #expect(held.report["County"]?.hasChanges == false)
        #expect(
            held.description.contains(
                "Postcode: 1500 → 750 rows; 0 added, 750 removed (50.0%), 0 changed (0.0%) — 50.0% removed, more than the 5.0% allowed"),
            "\(held.description)")
        #expect(held.description.contains("removed: \(removed.joined(separator: ", ")), …"), "\(held.description)")
        // Nothing replaced, nothing left behind: the same files, byte for byte.
        #expect(try outputFiles() == before)
    }

    @Test func anEmptiedEntityIsHeldWhateverItsBudget() throws {
        _ = try nights.build("1", night: 1, base: nil)
        // The counties' export came broken (every row rejected, within --max-rejects), and no postcode names one.
        let postcodes = DeltaNights.postcodes(night: 1).replacingOccurrences(of: ",KEN,", with: ",,").replacingOccurrences(
            of: ",EDI,", with: ",,")
        writeTestInputs(directory, postcodes: postcodes, counties: "code,name,population\nKEN,Kent,many\nEDI,Edinburgh,several\n")
        var project = ProjectFile()
        project.changeBudget = ChangeBudget(removed: 1, changed: 1)
        let held = try #require(throws: ChangeBudgetExceeded.self) {
            var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
            options.model = directory.path("model.json")
            options.outputDirectory = directory.path("out-1")
            options.dataVersion = 2
            options.base = directory.path("out-1/manifest.json")
            options.maxRejects = 2
            _ = try SeedBuilder().build(try options.resolve(project: project).0)
        }
        #expect(held.report["County"].map { ($0.baseRows, $0.rows, $0.removed, $0.isEmptied) } ?? (0, 0, 0, false) == (2, 0, 2, true))
        #expect(held.report["County"]?.samples[.removed].map(Set.init) == ["KEN", "EDI"])
        #expect(held.report["Postcode"]?.changed == 1_500)
        #expect(held.breaches == [ChangeBudget.Breach(entity: "County", reason: "emptied (2 rows in the base, none now)")])
    }

    @Test func acceptingTheChangeLetsTheBuildThroughWithItsReport() throws {
        _ = try nights.build("1", night: 1, base: nil)
        let built = try buildOverNightOne(Self.halfExport()) { $0.acceptChange = true }
        #expect(built.changes?["Postcode"]?.removed == 750)
        #expect(try StoreMetadata.read(at: URL(fileURLWithPath: directory.path("out-1/postcodes.sqlite"))).dataVersion == 2)
    }

    @Test func aBudgetPerEntityFromTheProjectFile() throws {
        _ = try nights.build("1", night: 1, base: nil)
        let file = directory.write("seedbuild.json", #"{"changeBudget": {"removed": 0.01, "entities": {"Postcode": {"removed": 0.5}}}}"#)
        let project = try ProjectFile.load(file)
        #expect(project.changeBudget == ChangeBudget(removed: 0.01, changed: 0.25, entities: ["Postcode": .init(removed: 0.5)]))
        // 50% removed is within Postcode's own 50%.
        let built = try buildOverNightOne(Self.halfExport(), project: project)
        #expect(built.changes?["Postcode"]?.removed == 750)

        let strict = try ProjectFile.load(
            directory.write("strict.json", #"{"changeBudget": {"entities": {"Postcode": {"removed": 0.4}}}}"#))
        _ = try nights.build("1", night: 1, base: nil)
        #expect(throws: ChangeBudgetExceeded.self) { try buildOverNightOne(Self.halfExport(), project: strict) }

        let wrong = directory.write("wrong.json", #"{"changeBudget": {"entities": {"Postcode": {"removed": 5}}}}"#)
        let error = try #require(throws: IngestError.self) { try ProjectFile.load(wrong) }
        #expect("\(error)".contains("\"changeBudget.entities.Postcode.removed\" must be a share from 0 to 1"), "\(error)")
    }

    @Test(arguments: [nil, 0])
    func everyBuildThatFollowsABaseCountsItsChanges(deltas: Int?) throws {
        _ = try nights.build("1", night: 1, base: nil)
        // Night 2 drops 15 postcodes, moves 15 and adds 3 (``DeltaNights``), within the budget.
        let built = try buildOverNightOne(DeltaNights.postcodes(night: 2), deltas: deltas)
        let changes = try #require(built.changes)
        let postcode = try #require(changes["Postcode"])
        #expect((postcode.baseRows, postcode.rows, postcode.added, postcode.removed, postcode.changed) == (1_500, 1_488, 3, 15, 15))
        #expect(Set(postcode.samples[.added] ?? []) == ["ZZ2 0AA", "ZZ2 1AA", "ZZ2 2AA"])
        #expect(postcode.samples[.changed]?.allSatisfy { $0.hasPrefix("AB") && $0.hasSuffix("3XY") } == true, "\(postcode.samples)")
        #expect(changes["County"].map { ($0.baseRows, $0.hasChanges) } ?? (0, true) == (2, false))
        #expect(changes.fromDataVersion == 1 && changes.toDataVersion == 2)
        #expect(changes.from == directory.path("out-1/manifest.json"))
    }

    @Test func storesCompareWithTheirChangedRowsSideBySide() throws {
        let one = try nights.build("1", night: 1, base: nil)
        let two = try nights.build("2", night: 2, base: one.manifestPath)
        let report = try StoreComparison(rowLimit: 2).compare(
            base: directory.path("out-1/postcodes.sqlite"), new: directory.path("out-2/postcodes.sqlite"))
        let postcode = try #require(report["Postcode"])
        #expect((postcode.added, postcode.removed, postcode.changed) == (3, 15, 15))
        #expect(postcode.changedRows.count == 2)
        let first = try #require(postcode.changedRows.first)
        #expect(first.key.hasSuffix("3XY"), "\(first)")
        let latitude = try #require(first.columns.first)
        #expect(first.columns.count == 1 && latitude.name == "ZLATITUDE", "\(first)")
        // A moved postcode's latitude is 0.2 higher that night.
        #expect(abs((Double(latitude.new) ?? 0) - (Double(latitude.old) ?? 0) - 0.2) < 1e-9, "\(latitude)")
        #expect(report.text.contains("  \(first.key):\n    ZLATITUDE  \(latitude.old)  →  \(latitude.new)"), "\(report.text)")

        // The same from the artifacts and from the manifests, read as releases.
        for (a, b) in [(one.artifactPath, two.artifactPath), (one.manifestPath, two.manifestPath)] {
            let (base, new) = (try ReleaseSource.open(a), try ReleaseSource.open(b))
            defer {
                base.close()
                new.close()
            }
            let again = try StoreComparison().compare(base: base.path, new: new.path, from: a, to: b)
            #expect(again["Postcode"].map { ($0.added, $0.removed, $0.changed) } ?? (0, 0, 0) == (3, 15, 15))
            #expect(again.fromDataVersion == 1 && again.toDataVersion == 2)
        }
    }
}
