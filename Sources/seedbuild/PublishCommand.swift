import ArgumentParser
import Foundation
import SeedPipeline
import SeedStore

/// `seedbuild publish OUT_DIR --to URL`: uploads a build's artifact and manifest, then moves `latest.json`.
struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a build (its manifest.json and artifact) to a folder, a WebDAV server or S3, replacing latest.json last.")

    @Argument(help: "The build's output folder (default: seedbuild.json's \"out\", else build/seed).")
    var outputDirectory: String?

    @Option(
        help:
            "The destination: a folder, file://…, http(s)://… accepting WebDAV PUT and MOVE, or s3://bucket/prefix (default: seedbuild.json's \"publish\", else dist)."
    )
    var to: String?

    @Option(help: "Keep only the newest N releases on the destination.")
    var keep: Int?

    @Option(
        name: .customLong("s3-endpoint"),
        help: "The endpoint for s3:// destinations (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS in AWS_REGION).")
    var s3Endpoint: String?

    @Option(name: .customLong("s3-acl"), help: "A canned ACL for S3 uploads, e.g. public-read so apps can download without credentials.")
    var s3ACL: String?

    @Option(
        name: .customLong("pointer-max-age"),
        help: ArgumentHelp(
            "Seconds a CDN or proxy may serve latest.json before asking the server again (s3:// stores it as Cache-Control; default 0: every time). Artifacts and manifests are cached for a year.",
            valueName: "seconds"))
    var pointerMaxAge: Int?

    @Flag(
        name: .customLong("allow-unsigned"),
        help: "Publish an unsigned manifest even where the current release is signed (apps that trust its key will refuse it).")
    var allowUnsigned = false

    @Option(
        help: ArgumentHelp(
            "Write the publish's figures to this file in Prometheus's text format (for node-exporter's textfile collector), also when it fails.",
            valueName: "file"))
    var metrics: String?

    @Flag(help: "Print a JSON summary instead of text, and no progress.")
    var json = false

    func validate() throws {
        if let keep, keep < 1 { throw ValidationError("--keep must be 1 or more") }
        if let pointerMaxAge, pointerMaxAge < 0 { throw ValidationError("--pointer-max-age must be 0 or more seconds") }
    }

    func run() throws {
        let report = RunReport(enabled: false, metricsPath: metrics)
        try CommandFailure.reportingFailure(asJSON: json) {
            let result = try report.stage("publish") { try publish() }
            report.metrics.record(published: result)
            report.finish(passed: true)
        }
    }

    private func publish() throws -> Publisher.Result {
        let project = try CommandFailure.exitOnError { () throws in
            try ProjectFile.load(inDirectory: FileManager.default.currentDirectoryPath)
        }
        let directory = outputDirectory ?? project?.out ?? BuildOptions.defaultOutputDirectory
        let destination = try PublishStep.destination(to, project: project)
        if !destination.hasPrefix("s3://"),
            let name = s3Endpoint != nil ? "--s3-endpoint" : s3ACL != nil ? "--s3-acl" : pointerMaxAge != nil ? "--pointer-max-age" : nil
        {
            CommandFailure.printError("error: \(name) applies to s3:// destinations only, not \(destination)")
            throw ExitCode(64)
        }
        var publisher = Publisher()
        publisher.keep = keep
        publisher.s3Endpoint = s3Endpoint
        publisher.s3ACL = s3ACL
        publisher.cachePolicy = CachePolicy(pointerMaxAge: pointerMaxAge ?? 0)
        publisher.allowUnsigned = allowUnsigned
        let display = ProgressDisplay.onTerminal(unless: json)
        display?.status("publishing to \(destination)")
        let result: Publisher.Result
        do {
            defer { display?.finish() }
            result = try PublishStep.run(publisher, directory, to: destination)
        }
        if json {
            print(RunReport.text(RunReport.publish(result)))
        } else {
            PublishStep.printSummary(result)
        }
        return result
    }
}

/// Runs the publish stage; says what it did once any status line is cleared.
enum PublishStep {
    /// The destination given, else the project file's, else `dist`. A mistyped or unsupported scheme
    /// is a usage error (exit 64), found before anything is built, read or written.
    static func destination(_ given: String?, project: ProjectFile?) throws -> String {
        try CommandFailure.exitOnError(status: 64) { () throws(TransferError) in
            try LocationAddress.normalized(given ?? project?.publish ?? "dist", schemes: Publisher.schemes, method: "PUT")
        }
    }

    static func run(_ publisher: Publisher, _ directory: String, to destination: String) throws -> Publisher.Result {
        try CommandFailure.exitOnError { try publisher.publish(directory, to: destination) }
    }

    static func printSummary(_ result: Publisher.Result) {
        let expires = result.expires.map { "; expires \(ISO8601DateFormatter().string(from: $0))" } ?? ""
        switch result.outcome {
        case .published: print("published data version \(result.dataVersion) to \(result.channel)\(expires)")
        case .refreshed: print("refreshed data version \(result.dataVersion) at \(result.channel): \(result.reason ?? "")")
        case .unchanged:
            print("already published: \(result.channel) has this content (data version \(result.dataVersion))\(expires); nothing to do")
        }
        if result.outcome == .unchanged, let reason = result.reason { CommandFailure.printError("warning: \(reason)") }
        if result.outcome != .unchanged {
            for delta in result.deltas { print("delta from \(delta.fromDataVersion): \(delta.url)") }
        }
        for path in result.pruned { print("pruned \(path)") }
        if let page = result.pageURL { print("channel page: \(page)") }
        if let problem = result.pageProblem { CommandFailure.printError("warning: \(problem)") }
    }
}
