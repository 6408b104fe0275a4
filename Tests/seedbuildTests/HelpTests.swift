import Foundation
import SeedTestSupport
import Testing

/// `seedbuild COMMAND --help`, `-h` and `seedbuild help COMMAND` print that command's help and
/// nothing else, in any folder: help is parsed before any input is looked for.
@Suite("Help")
struct HelpTests {
    static let commands = [
        "run", "build", "compress", "verify", "publish", "fetch", "diff", "inspect", "migrate", "query", "keygen", "model", "model show",
        "model hashes",
    ]

    /// An empty folder: no seedbuild.json, no CSV.
    let empty: URL

    init() throws {
        empty = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-help-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    }

    /// The first line of a command's own help: its abstract.
    static func overview(_ command: String) throws -> String {
        let help = try runSeedbuild(["help"] + command.split(separator: " ").map(String.init))
        return try #require(help.stdout.split(separator: "\n").first.map(String.init))
    }

    @Test(arguments: commands)
    func helpThroughAPipe(_ command: String) throws {
        defer { try? FileManager.default.removeItem(at: empty) }
        let words = command.split(separator: " ").map(String.init)
        let expected = try Self.overview(command)
        #expect(!expected.hasPrefix("OVERVIEW: Build verified"), "help \(command) printed the top-level help")
        for arguments in [words + ["--help"], words + ["-h"], ["help"] + words] {
            for directory in [empty, repositoryRoot] {
                let result = try runSeedbuild(arguments, in: directory)
                #expect(result.status == 0, "\(arguments) in \(directory.path): \(result.stderr)")
                #expect(result.stderr.isEmpty, "\(arguments) in \(directory.path) wrote to stderr: \(result.stderr)")
                #expect(result.stdout.hasPrefix(expected), "\(arguments): \(result.stdout.prefix(200))")
                #expect(result.stdout.contains("USAGE: seedbuild \(command)"), "\(arguments): \(result.stdout.prefix(300))")
            }
        }
    }

    /// On a terminal (a pseudo-terminal from script(1)), what the user sees is that command's help only.
    @Test(arguments: ["build", "run", "fetch"])
    func helpOnATerminal(_ command: String) throws {
        defer { try? FileManager.default.removeItem(at: empty) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(seedbuildBinary.path)' \(command) --help", "/dev/null"]
        process.currentDirectoryURL = empty
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let screen = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(screen)")
        #expect(screen.hasPrefix(try Self.overview(command)), "\(screen.prefix(300))")
        #expect(!screen.contains("error: "), "\(screen)")
        #expect(!screen.contains("SUBCOMMANDS:"), "the top-level usage came first: \(screen.prefix(300))")
    }

    /// A reader that stops early (`seedbuild build --help | head -1`) ends seedbuild quietly: nothing
    /// on stderr, and the reader gets its line.
    @Test func aClosedPipeEndsQuietly() throws {
        defer { try? FileManager.default.removeItem(at: empty) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(seedbuildBinary.path)' build --help 2>stderr.txt | head -1"]
        process.currentDirectoryURL = empty
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let first = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(first.hasPrefix(try Self.overview("build")))
        let stderr = try String(contentsOf: empty.appendingPathComponent("stderr.txt"), encoding: .utf8)
        #expect(stderr.isEmpty, "\(stderr)")
    }
}
