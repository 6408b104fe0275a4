import ArgumentParser
import Foundation
import SeedInstall
import SeedModel

/// `seedbuild fetch URL --to DIR`: what an app does — fetch, check and install a seed release.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch a release from a channel (<dataset>/<model-version>/ or its latest.json), check it and install it in a folder.")

    @Argument(help: "The release channel: http(s)://…, file://… or a path.")
    var url: String

    @Option(help: "The folder to install into.")
    var to: String

    @Option(help: "The app's seed model; the release must match it.")
    var model: String?

    @Option(
        name: .customLong("user-model"),
        help: "The app's user models, merged with --model as the app's coordinator merges them (repeatable).")
    var userModels: [String] = []

    @Option(name: .customLong("trusted-key"), help: "An Ed25519 public key (PEM) the manifest must be signed by (repeatable).")
    var trustedKeys: [String] = []

    @Flag(
        name: .customLong("allow-unsigned"),
        help:
            "Install without a trusted key: anyone who can change the server or the connection can change the seed. Everything else is still checked."
    )
    var allowUnsigned = false

    @Option(help: "Seconds the whole fetch may take, retries included.")
    var deadline: Double = 300

    @Flag(
        name: .customLong("full-check"),
        help:
            "Check a release that comes by delta by reading the whole store (quick_check, every row's digest, the installed store's SHA-256), not only what the delta touches."
    )
    var fullCheck = false

    @Flag(help: "Print a JSON summary instead of text, and no progress.")
    var json = false

    func validate() throws {
        if model == nil && !userModels.isEmpty { throw ValidationError("--user-model goes with --model, the app's seed model") }
        if trustedKeys.isEmpty && !allowUnsigned {
            throw ValidationError(
                "give the publisher's public key with --trusted-key PUB, or accept an unsigned channel with --allow-unsigned")
        }
        if !(deadline > 0) { throw ValidationError("--deadline must be more than 0 seconds") }
        do {
            _ = try LocationAddress.normalized(url, schemes: ReleaseChannel.schemes, method: "GET")
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        try CommandFailure.reportingFailure(asJSON: json) { try install() }
    }

    private func install() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: to, isDirectory: &isDirectory), !isDirectory.boolValue {
            CommandFailure.printError("error: \(to): not a folder (a file is there); --to names the folder seeds are installed in")
            throw ExitCode(73)
        }
        if trustedKeys.isEmpty {
            CommandFailure.printError(
                "warning: installing from \(url) without a trusted key (--allow-unsigned): the release is checked against itself only; anyone who can change the server or the connection can change the seed"
            )
        }
        var installer = SeedInstaller()
        installer.allowUnsigned = allowUnsigned
        installer.deadline = deadline
        installer.fullCheck = fullCheck
        installer.trustedKeys = try trustedKeys.map { path in
            let text = try CommandFailure.exitOnError { () throws in try String(contentsOfFile: path, encoding: .utf8) }
            return try CommandFailure.exitOnError { () throws(StoreError) in try TrustedKey(pem: text, path: path) }
        }
        if let model {
            // Core Data compares the hashes of every entity of the coordinator's model: the merged one.
            installer.model = try CommandFailure.exitOnError { () throws(ModelError) in
                try Model.merged(try ([model] + userModels).map { path throws(ModelError) in try ModelLoader.load(path) })
            }
        }
        // A status line on a terminal only: a pipe or --json gets the summary alone.
        let display = ProgressDisplay.onTerminal(unless: json)
        let result = try CommandFailure.exitOnError {
            defer { display?.finish() }
            return try installer.install(from: url, to: to) { display?.update($0) }
        }
        if json {
            print(RunReport.text(Self.summary(result)))
            return
        }
        switch result.outcome {
        case .installed:
            let via = result.via == .delta ? "by a delta" : "by the full artifact"
            print(
                "installed data version \(result.dataVersion) as \(result.storePath) (\(via), \(result.downloadedBytes) bytes downloaded)")
            if let fallback = result.fallback {
                print("the delta was not used (\(fallback.reason.rawValue)): \(fallback.message)")
            }
            if result.restamped {
                print(
                    "re-stamped on this device for the app's model (the release was stamped for other user entities): it opens directly, with no migration"
                )
            } else if let plan = result.migration, plan.isEmpty {
                print(
                    "its version hashes differ from the app's model only in entities outside its configuration (the app's user entities, say): Core Data re-stamps it on a writable copy before opening it; build it with the app's user models (\"userModels\" in seedbuild.json) so that it opens directly"
                )
            } else if let plan = result.migration {
                print("it opens under the app's model through a lightweight migration:\n\(plan)")
            }
        case .alreadyInstalled: print("data version \(result.dataVersion) is installed already (\(result.storePath)); nothing to do")
        }
    }

    /// `--json`: what was installed, where, signed by which key, how it came (`via`, `downloadedBytes`,
    /// and `fallback` when a delta was not used), and how it opens under the app's model.
    static func summary(_ result: SeedInstaller.Result) -> [String: Any] {
        var object: [String: Any] = [
            "outcome": result.outcome.rawValue, "dataVersion": result.dataVersion, "storePath": result.storePath,
            "signedBy": result.signedBy ?? NSNull(),
            "opensBy": opensBy(result),
            "via": result.via?.rawValue ?? NSNull(),
            "downloadedBytes": result.downloadedBytes,
        ]
        if let fallback = result.fallback { object["fallback"] = ["reason": fallback.reason.rawValue, "message": fallback.message] }
        if let plan = result.migration, !plan.isEmpty { object["migration"] = "\(plan)" }
        return object
    }

    /// How the installed store opens under the app's model: "direct", "restamp" (its hashes differed
    /// only outside its configuration: re-stamped here, or by Core Data on a writable copy when the
    /// plan is empty) or "migration".
    static func opensBy(_ result: SeedInstaller.Result) -> String {
        if result.restamped { return "restamp" }
        guard let plan = result.migration else { return "direct" }
        return plan.isEmpty ? "restamp" : "migration"
    }
}
