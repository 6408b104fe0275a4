import ArgumentParser
import Foundation
import SeedPipeline

/// `seedbuild compress STORE`: (re)writes a built store's gzip artifact and manifest.
struct CompressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compress",
        abstract: "Compress a built store to <store>.gz and write its manifest (again, e.g. after inspect --set).")

    @Argument(help: "The .sqlite seed store.")
    var store: String

    @Option(name: .customLong("compression-level"), help: "gzip level, 1 (fastest) to 9 (smallest).")
    var compressionLevel: Int32 = 6

    @Option(help: "Threads to deflate on (default: every core); the output is the same for any number.")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Days until the manifest expires.", valueName: "days"))
    var expiresIn: Int = 14

    @Option(
        name: .customLong("sign-key"),
        help:
            "An Ed25519 private key (PEM) to sign the manifest with: a file, or env:NAME for a variable holding it (default: $SEEDBUILD_SIGN_KEY when set)."
    )
    var signKey: String?

    @Flag(help: "When another seedbuild is writing to the store's folder, wait for it (default: exit 75).")
    var wait = false

    @Flag(help: "Print a JSON summary.")
    var json = false

    func validate() throws {
        if !(1...9).contains(compressionLevel) { throw ValidationError("--compression-level must be 1 to 9") }
        if threads < 1 { throw ValidationError("--threads must be 1 or more") }
        if expiresIn < 1 { throw ValidationError("--expires-in must be 1 day or more") }
    }

    func run() throws {
        try CommandFailure.reportingFailure(asJSON: json) { try compress() }
    }

    private func compress() throws {
        var packager = Packager()
        packager.compressionLevel = compressionLevel
        packager.threads = threads
        packager.expiresInDays = expiresIn
        packager.signingKey = try CommandFailure.exitOnError { () throws(IngestError) in try SigningKey.load(option: signKey) }
        let lock = try CommandFailure.exitOnError { () throws(IngestError) in
            try OutputLock(
                directory: (store as NSString).deletingLastPathComponent.isEmpty ? "." : (store as NSString).deletingLastPathComponent,
                wait: wait)
        }
        defer { withExtendedLifetime(lock) {} }
        let display = ProgressDisplay.onTerminal(unless: json)
        let packaged = try CommandFailure.exitOnError {
            defer { display?.finish() }
            return try packager.package(store: store) { done, total in display?.updateBytes("compressing", done: done, total: total) }
        }
        // Deltas the folder's manifest listed that no longer fit this store are dropped: say so.
        for omitted in packaged.omittedDeltas { CommandFailure.printError("warning: \(omitted)") }
        if json {
            print(String(decoding: packaged.manifest.fileData, as: UTF8.self), terminator: "")
        } else {
            print("compressed \(packaged.artifactPath): \(packaged.gzip.outputBytes) bytes; manifest \(packaged.manifestPath)")
        }
    }
}
