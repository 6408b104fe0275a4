import Foundation
import Testing

/// Private keys stay out of repositories; CI hands the key over in an environment variable.
@Suite("Signing keys kept safe")
struct KeygenTests {
    private let root = FileManager.default.temporaryDirectory.appendingPathComponent("seedbuild-keys-\(UUID().uuidString)")

    private func git(_ arguments: [String], in directory: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", directory.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "git \(arguments)")
    }

    @Test func keygenRefusesAWorkTreeThatDoesNotIgnoreTheKey() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = root.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        try git(["init", "-q"], in: repository)
        let refused = try runSeedbuild(
            ["keygen", "--out", "keys"], in: repository, environment: ["XDG_CONFIG_HOME": root.path + "/config"])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("inside the git work tree"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--out \(root.path)/config/seedbuild/keys"), "suggests a place outside: \(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: repository.path + "/keys"), "nothing written")

        try Data("keys/\n".utf8).write(to: repository.appendingPathComponent(".gitignore"))
        let ignored = try runSeedbuild(["keygen", "--out", "keys"], in: repository)
        #expect(ignored.status == 0, "\(ignored.stderr)")
        let mode =
            try FileManager.default.attributesOfItem(atPath: repository.path + "/keys/seedbuild-signing.key")[.posixPermissions]
            as? NSNumber
        #expect(mode?.intValue == 0o600)

        // The suggested default lies outside any work tree.
        let outside = try runSeedbuild(["keygen"], in: repository, environment: ["XDG_CONFIG_HOME": root.path + "/config"])
        #expect(outside.status == 0, "\(outside.stderr)")
        #expect(FileManager.default.fileExists(atPath: root.path + "/config/seedbuild/keys/seedbuild-signing.key"))
    }

    @Test func theSigningKeyComesFromAnEnvironmentVariable() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let keys = root.appendingPathComponent("keys").path
        let made = try runSeedbuild(["keygen", "--out", keys])
        #expect(made.status == 0)
        let keyID = try #require(made.stdout.components(separatedBy: "key id ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let pem = try String(contentsOfFile: keys + "/seedbuild-signing.key", encoding: .utf8)
        let project = try SampleProject()

        func signature() throws -> String? {
            let data = try Data(contentsOf: URL(fileURLWithPath: project.path("build/seed/manifest.json")))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return (object?["signature"] as? [String: Any])?["keyId"] as? String
        }
        let named = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--sign-key", "env:CI_SECRET"], in: project.url, environment: ["CI_SECRET": pem])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try signature() == keyID)

        let byDefault = try runSeedbuild(
            ["build", "seeds/postcodes.csv", "--out", "build/seed"], in: project.url, environment: ["SEEDBUILD_SIGN_KEY": pem])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(try signature() == keyID)

        let unset = try runSeedbuild(["build", "seeds/postcodes.csv", "--sign-key", "env:NOT_THERE"], in: project.url)
        #expect(unset.status == 66)
        #expect(unset.stderr.contains("$NOT_THERE: the environment variable is not set or empty"))
    }
}
