import Foundation
import Testing

/// Progress on a terminal: each phase named, one line that fits the width, sensible rates.
@Suite("Progress on a terminal")
struct ProgressTests {
    @Test func phasesAreNamedAndEveryRedrawFitsTheTerminal() throws {
        let project = try SampleProject()
        try project.writeBigInput(rows: 300_000)
        // script(1) gives the binary a pseudo-terminal 50 columns wide; stdout is dropped.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "stty cols 50; '\(seedbuildBinary.path)' build big/postcodes.csv 2>&1 >/dev/null", "/dev/null"]
        process.currentDirectoryURL = project.url
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let redraws = text.components(separatedBy: "\r\u{1B}[K").map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty }
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
}
