import Foundation
import SeedTestSupport
import Testing

/// Faults end with a sysexits status and a message naming the path and the cause — never a crash.
@Suite("Faults on the command line")
struct FaultTests {
    @Test func malformedModelFilesAreRefusedNotCrashedOn() throws {
        let project = try SampleProject()
        let reproducers: [(String, [UInt8])] = [
            ("Utf8.xcdatamodel", Array("<model><e".utf8) + [0xFF] + Array("/></model>".utf8)),
            ("Instruction.xcdatamodel", Array("<model><?foo?></model>".utf8)),
        ]
        for (name, bytes) in reproducers {
            try FileManager.default.createDirectory(atPath: project.path(name), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: project.path(name + "/contents")))
            let result = try runSeedbuild(["model", "show", name], in: project.url, environment: ["SWIFT_BACKTRACE": "enable=no"])
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("\(name)/contents: line 1:"), "\(result.stderr)")
            let build = try runSeedbuild(
                ["build", "seeds/postcodes.csv", "--model", name], in: project.url, environment: ["SWIFT_BACKTRACE": "enable=no"])
            #expect(build.status == 65, "\(name): \(build.stderr)")
        }
    }
}

/// Whether this machine lets a test mount a small tmpfs in a private namespace (for disk-full tests).
let canMountTmpfs: Bool = {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    probe.arguments = ["-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}()

extension FaultTests {
    @Test(.enabled(if: canMountTmpfs, "needs unshare -rm and tmpfs"))
    func aFullDiskExits74NamingThePathNotTheStatement() throws {
        let project = try SampleProject()
        try project.writeBigInput(rows: 60_000)
        var failed: [String] = []
        for size in ["256k", "2m", "3m"] {
            // The output folder is a small tmpfs: the store, the artifact or the manifest runs out of space.
            let script = """
                mkdir -p out && mount -t tmpfs -o size=\(size) tmpfs out && "$SEEDBUILD" build big/postcodes.csv --out out; status=$?; ls -A out >&2; exit $status
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = ["-rm", "sh", "-c", script]
            process.currentDirectoryURL = project.url
            process.environment = ProcessInfo.processInfo.environment.merging(["SEEDBUILD": seedbuildBinary.path]) { _, new in new }
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationStatus == 0 { continue } // it fitted
            failed.append(size)
            #expect(process.terminationStatus == 74, "\(size): \(stderr)")
            #expect(
                stderr.contains("No space left on device") || stderr.contains("no space left on the device holding out"),
                "\(size): \(stderr)")
            #expect(!stderr.contains("INSERT") && !stderr.contains("NSCocoaErrorDomain"), "\(size): \(stderr)")
            #expect(!stderr.contains("manifest.json\n"), "\(size): no manifest for a failed build")
        }
        #expect(failed.count >= 2, "the sizes must run out of space in more than one stage: \(failed)")
    }

    /// migrate never writes over the store it reads: not by the same path, another spelling of it,
    /// or a hard link, and not when it migrates and converts in two steps.
    @Test func migrateRefusesToWriteOverItsSource() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv", "--no-compress"], in: project.url).status == 0)
        let store = "build/seed/postcodes.sqlite"
        let before = try Data(contentsOf: URL(fileURLWithPath: project.path(store)))
        try FileManager.default.linkItem(atPath: project.path(store), toPath: project.path("linked.sqlite"))
        let attempts: [[String]] = [
            ["--format", "plain", "--out", store],
            ["--format", "plain", "--out", "./build/seed/../seed/postcodes.sqlite"],
            ["--format", "plain", "--out", "linked.sqlite"],
            ["--format", "plain", "--model", "schemas/PostCodesModel.xcdatamodeld", "--out", store],
        ]
        for options in attempts {
            let result = try runSeedbuild(["migrate", store] + options, in: project.url)
            #expect(result.status == 65, "\(options): \(result.stderr)")
            #expect(result.stderr.contains("the source is never changed"), "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: project.path(store))) == before)
    }

    /// The real cause first: a missing file is missing (66), whatever its name; a file whose only
    /// record has a bad byte has that record rejected, not "a header but no records".
    @Test func theRealCauseIsReported() throws {
        let project = try SampleProject()
        let missing = try runSeedbuild(["build", "seeds/nothere.csv"], in: project.url)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("seeds/nothere.csv: no such file; check the path"), "\(missing.stderr)")

        let lines = try String(contentsOfFile: project.path("seeds/postcodes.csv"), encoding: .utf8).split(separator: "\n")
        var bytes = Data((lines[0] + "\n").utf8)
        // The first record with a 0xFF byte at the start of its fourth field (ward).
        let fields = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        bytes +=
            Data(fields[0..<3].joined(separator: ",").utf8) + Data([0x2C, 0xFF]) + Data((fields[3...].joined(separator: ",") + "\n").utf8)
        try FileManager.default.createDirectory(atPath: project.path("one"), withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: project.path("one/postcodes.csv")))
        try FileManager.default.copyItem(atPath: project.path("seeds/counties.csv"), toPath: project.path("one/counties.csv"))
        let one = try runSeedbuild(["build", "one/postcodes.csv", "--max-rejects", "10"], in: project.url)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stderr.contains("one/postcodes.csv:2:4 (field \"ward\"): invalid UTF-8"), "\(one.stderr)")
        #expect(!one.stderr.contains("no records"), "\(one.stderr)")
    }

    @Test func outputsThatAreFilesExit73() throws {
        let project = try SampleProject()
        project.write("afile", "x")
        let build = try runSeedbuild(["build", "seeds/postcodes.csv", "--out", "afile"], in: project.url)
        #expect(build.status == 73)
        #expect(build.stderr.contains("afile: cannot create the output folder (a file is there, not a folder)"), "\(build.stderr)")
        let fetch = try runSeedbuild(["fetch", "dist/postcodes/2/", "--to", "afile", "--allow-unsigned"], in: project.url)
        #expect(fetch.status == 73)
        #expect(fetch.stderr.contains("afile: not a folder") && !fetch.stderr.contains("NSCocoaErrorDomain"), "\(fetch.stderr)")

        // Publish and keygen name the part of the path in the way, not Foundation's error dump.
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url).status == 0)
        let publish = try runSeedbuild(["publish", "--to", "afile/dist"], in: project.url)
        #expect(publish.status == 73)
        #expect(
            publish.stderr.contains("cannot create the folder (afile is a file, not a folder)")
                && !publish.stderr.contains("NSCocoaErrorDomain"), "\(publish.stderr)")
        let migrate = try runSeedbuild(
            ["migrate", "build/seed/postcodes.sqlite", "--format", "plain", "--out", "afile/plain.sqlite"], in: project.url)
        #expect(migrate.status == 74)
        #expect(
            migrate.stderr.contains("afile/plain.sqlite: cannot write here: ") && migrate.stderr.contains("afile is a file, not a folder"),
            "\(migrate.stderr)")
        let keygen = try runSeedbuild(["keygen", "--out", "afile/keys"], in: project.url)
        #expect(keygen.status == 73)
        #expect(keygen.stderr.contains("afile/keys: cannot create the folder (afile is a file, not a folder)"), "\(keygen.stderr)")
    }
}

extension FaultTests {
    @Test func overLongRecordsAreRejectsAndPipesAreInputs() throws {
        let project = try SampleProject()
        let csv = try String(contentsOfFile: project.path("seeds/postcodes.csv"), encoding: .utf8)
        project.write("long/postcodes.csv", csv + "CT1 1AA," + String(repeating: "z", count: 50_000) + "\n")
        try FileManager.default.copyItem(atPath: project.path("seeds/counties.csv"), toPath: project.path("long/counties.csv"))
        let refused = try runSeedbuild(["build", "long/postcodes.csv", "--max-record-size", "4K"], in: project.url)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("the record is longer than 4096 bytes"), "\(refused.stderr)")
        let rejects = try Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/postcodes.rejects.csv")))
        #expect(rejects.count < 4_500, "only a prefix of the record: \(rejects.count)")
        #expect(
            try runSeedbuild(["build", "long/postcodes.csv", "--max-record-size", "4K", "--max-rejects", "1"], in: project.url).status == 0)
        #expect(try runSeedbuild(["build", "long/postcodes.csv", "--max-record-size", "1x"], in: project.url).status == 64)

        // The sample's CSVs through named pipes: one pass reads and hashes them.
        try FileManager.default.createDirectory(atPath: project.path("pipes"), withIntermediateDirectories: true)
        for name in ["postcodes", "counties"] {
            let fifo = project.path("pipes/\(name).csv")
            #expect(mkfifo(fifo, 0o600) == 0)
            let text = try Data(contentsOf: URL(fileURLWithPath: project.path("seeds/\(name).csv")))
            Thread {
                let handle = FileHandle(forWritingAtPath: fifo)
                handle?.write(text)
                try? handle?.close()
            }.start()
        }
        let piped = try runSeedbuild(["build", "pipes/postcodes.csv", "--json", "--no-compress"], in: project.url)
        #expect(piped.status == 0, "\(piped.stderr)")
        let sha = String(decoding: try shell("sha256sum '\(project.path("seeds/postcodes.csv"))' | cut -c1-64").output, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(piped.stdout.contains(sha), "the checksum of the bytes that went through the pipe")
    }
}
