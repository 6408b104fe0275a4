import Foundation
import SeedTestSupport
import Testing

/// One build at a time per output folder; interrupted builds leave no temporary files and never a
/// mixed set of store, artifact and manifest.
@Suite("Interrupted and concurrent runs")
struct ConcurrentRunTests {
    private func start(_ arguments: [String], in directory: URL) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = seedbuildBinary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, err)
    }

    /// A project whose postcodes come through a FIFO: a build blocks on it, holding the lock, until fed.
    private func pipedProject() throws -> (SampleProject, String) {
        let project = try SampleProject()
        try FileManager.default.createDirectory(atPath: project.path("pipe"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: project.path("seeds/counties.csv"), toPath: project.path("pipe/counties.csv"))
        let fifo = project.path("pipe/postcodes.csv")
        #expect(mkfifo(fifo, 0o600) == 0)
        return (project, fifo)
    }

    private func feed(_ fifo: String, from project: SampleProject) throws {
        let text = try Data(contentsOf: URL(fileURLWithPath: project.path("seeds/postcodes.csv")))
        let handle = try #require(FileHandle(forWritingAtPath: fifo))
        handle.write(text)
        try handle.close()
    }

    private func temporaryFiles(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(".tmp-") }
    }

    /// Waits for the build to create its working files. Generous: on a loaded machine (every suite
    /// runs at once) a debug binary can take seconds to start; it returns as soon as they appear.
    private func waitForTemporaryFiles(_ folder: String) {
        let deadline = Date().addingTimeInterval(60)
        while temporaryFiles(folder).isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    }

    private func stderr(of pipe: Pipe) -> String {
        String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func aSecondBuildIsRefusedNamingTheHolderOrWaits() throws {
        let (project, fifo) = try pipedProject()
        let (first, firstErr) = try start(["build", "pipe/postcodes.csv"], in: project.url)
        waitForTemporaryFiles(project.path("build/seed"))
        let refused = try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url)
        #expect(refused.status == 75)
        #expect(
            refused.stderr.contains("build/seed: another seedbuild (pid \(first.processIdentifier)) is writing to this folder"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("--wait"))

        let (waiting, waitingErr) = try start(["build", "seeds/postcodes.csv", "--wait"], in: project.url)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(waiting.isRunning, "waits for the first build")
        try feed(fifo, from: project)
        first.waitUntilExit()
        waiting.waitUntilExit()
        #expect(first.terminationStatus == 0, "\(stderr(of: firstErr))")
        #expect(waiting.terminationStatus == 0, "\(stderr(of: waitingErr))")
        #expect(temporaryFiles(project.path("build/seed")).isEmpty, "\(temporaryFiles(project.path("build/seed")))")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalRemovesTheRunsTemporaryFiles(signal: Int32) throws {
        let (project, fifo) = try pipedProject()
        let (build, buildErr) = try start(["build", "pipe/postcodes.csv"], in: project.url)
        waitForTemporaryFiles(project.path("build/seed"))
        #expect(!temporaryFiles(project.path("build/seed")).isEmpty, "the working store exists while the pipe blocks")
        kill(build.processIdentifier, signal)
        build.waitUntilExit()
        #expect(
            build.terminationReason == .uncaughtSignal && build.terminationStatus == signal,
            "ended \(build.terminationReason == .exit ? "with status" : "by signal") \(build.terminationStatus): \(stderr(of: buildErr))")
        #expect(temporaryFiles(project.path("build/seed")).isEmpty, "left: \(temporaryFiles(project.path("build/seed")))")
        // Unblock the pipe for nobody: open it non-blocking so the test never hangs.
        let fd = open(fifo, O_RDONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    @Test func killedBuildsNeverLeaveAMixedSetAndTheNextRunCleansUp() throws {
        let project = try SampleProject()
        try project.writeBigInput(rows: 150_000)
        let out = project.path("build/seed")
        #expect(try runSeedbuild(["build", "big/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<8 {
            let (build, _) = try start(["build", "big/postcodes.csv", "--data-version", "\(round + 2)"], in: project.url)
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...2.0, using: &generator))
            kill(build.processIdentifier, SIGKILL)
            build.waitUntilExit()
            // Whatever is there is one build's: a manifest only beside the files it describes.
            if FileManager.default.fileExists(atPath: out + "/manifest.json") {
                let verify = try runSeedbuild(["verify", "build/seed/manifest.json", "--json"], in: project.url)
                #expect(verify.status == 0, "round \(round): \(verify.stdout)")
            }
        }
        project.write("build/seed/.postcodes.sqlite.tmp-DEADBEEF", "left by a killed run")
        let final = try runSeedbuild(["build", "big/postcodes.csv", "--data-version", "99"], in: project.url)
        #expect(final.status == 0, "\(final.stderr)")
        #expect(temporaryFiles(out).isEmpty, "leftovers removed: \(temporaryFiles(out))")
        #expect(try runSeedbuild(["verify", "build/seed/manifest.json"], in: project.url).status == 0)
    }

    @Test func verifyAndPublishRefuseAMixedFolder() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv", "--out", "a", "--data-version", "1"], in: project.url).status == 0)
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv", "--out", "b", "--data-version", "2"], in: project.url).status == 0)
        // A store from another build copied over: the manifest no longer describes it.
        try FileManager.default.removeItem(atPath: project.path("a/postcodes.sqlite"))
        try FileManager.default.copyItem(atPath: project.path("b/postcodes.sqlite"), toPath: project.path("a/postcodes.sqlite"))
        let verify = try runSeedbuild(["verify", "a/manifest.json"], in: project.url)
        #expect(verify.status == 70)
        #expect(verify.stdout.contains("FAIL store beside") && verify.stdout.contains("the folder mixes two builds"), "\(verify.stdout)")
        let publish = try runSeedbuild(["publish", "a"], in: project.url)
        #expect(publish.status == 65)
        #expect(publish.stderr.contains("the folder mixes two builds"), "\(publish.stderr)")
    }
}
