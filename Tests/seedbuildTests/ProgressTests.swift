import Foundation
import SeedTestSupport
import Testing

/// Progress on a terminal: each phase named, one line that fits the width, sensible rates.
@Suite("Progress on a terminal")
struct ProgressTests {
    @Test func phasesAreNamedAndEveryRedrawFitsTheTerminal() throws {
        let project = try SampleProject()
        try project.writeBigInput(rows: 300_000)
        // A pseudo-terminal 50 columns wide; stdout is dropped.
        let redraws = try Self.onATerminal("build big/postcodes.csv 2>&1 >/dev/null", columns: 50, in: project)
        #expect(redraws.allSatisfy { $0.count <= 49 }, "one line narrower than the terminal: \(redraws.filter { $0.count > 49 })")
        for phase in ["reading County", "reading Postcode", "indexing", "digest", "compressing"] {
            #expect(redraws.contains { $0.hasPrefix(phase) }, "\(phase) in \(redraws)")
        }
        #expect(redraws.first { $0.hasPrefix("reading Postcode") }?.contains("0 rows") == true, "the phase shows before its first rows")
        // Rates count from the phase's start: never the 65,536,000 rows/s of a first update after 1 ms.
        let rates = redraws.compactMap { line -> Int? in
            guard let range = line.range(of: #"[\d,]+ rows/s"#, options: .regularExpression) else { return nil }
            return Int(line[range].replacingOccurrences(of: ",", with: "").replacingOccurrences(of: " rows/s", with: ""))
        }
        #expect(rates.allSatisfy { $0 < 20_000_000 }, "\(rates)")
    }

    /// Runs seedbuild with `arguments` (shell syntax) on a pseudo-terminal from script(1): what the
    /// terminal showed, split at each redraw of the status line, blank pieces dropped.
    static func onATerminal(_ arguments: String, columns: Int = 80, in project: SampleProject) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "stty cols \(columns); '\(seedbuildBinary.path)' \(arguments)", "/dev/null"]
        process.currentDirectoryURL = project.url
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        return text.components(separatedBy: "\r\u{1B}[K").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// Compress and verify on their own show what they are doing, and print their result after clearing it.
    @Test func compressAndVerifyShowTheirWork() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv", "--no-compress"], in: project.url).status == 0)
        let compress = try Self.onATerminal("compress build/seed/postcodes.sqlite 2>&1", in: project)
        #expect(compress.contains { $0.hasPrefix("compressing [") }, "\(compress)")
        #expect(compress.last?.hasPrefix("compressed build/seed/postcodes.sqlite.gz") == true, "\(compress)")
        let verify = try Self.onATerminal("verify build/seed/manifest.json 2>&1", in: project)
        #expect(verify.first == "verifying build/seed/manifest.json…", "\(verify)")
        #expect(verify.last?.hasPrefix("verify build/seed/manifest.json") == true, "\(verify)")
    }

    /// Publish and fetch name their steps on a terminal, and clear the line before saying what they did.
    @Test func publishAndFetchShowTheirStepsAndClearTheLine() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["build", "seeds/postcodes.csv"], in: project.url).status == 0)
        let publish = try Self.onATerminal("publish 2>&1", in: project)
        #expect(publish.first?.hasPrefix("publishing to dist") == true, "\(publish)")
        #expect(publish.last?.hasPrefix("published data version ") == true, "on a line of its own: \(publish)")

        // The whole job publishes too, and says so on a line of its own.
        let job = try Self.onATerminal("seeds/postcodes.csv --allow-unsigned 2>&1", in: project)
        #expect(job.contains { $0.hasPrefix("publishing") }, "\(job)")
        #expect(job.contains { $0.hasPrefix("published data version ") || $0.hasPrefix("already published") }, "\(job)")

        let fetch = try Self.onATerminal("fetch dist/postcodes/2/ --to app-data --allow-unsigned 2>&1", in: project)
        for step in ["checking the release", "inflating [", "checking the store"] {
            #expect(fetch.contains { $0.hasPrefix(step) }, "\(step) in \(fetch)")
        }
        #expect(fetch.last?.hasPrefix("installed data version ") == true, "on a line of its own: \(fetch)")
    }
}
