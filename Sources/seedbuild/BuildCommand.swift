import ArgumentParser
import Foundation
import SeedPipeline

/// `seedbuild build`: CSV files → a read-only SQLite seed store, its gzip artifact and manifest.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Ingest CSV files, build a read-only SQLite seed store, compress it and write its manifest.")

    @OptionGroup var flags: BuildFlags

    func validate() throws {
        try flags.validateWithoutPublishing()
    }

    func run() throws {
        // Not in validate(): ArgumentParser validates while parsing `--help` too.
        try flags.validateHasInputs()
        let report = RunReport(enabled: false, metricsPath: flags.metrics, passesHeldOn: true)
        try CommandFailure.reportingFailure(asJSON: flags.json) { try build(report) }
    }

    private func build(_ report: RunReport) throws {
        let (built, lock, compressed) = try report.stage("build") { try BuildStep.run(flags) }
        defer { withExtendedLifetime(lock) {} }
        report.metrics.record(built: built)
        let packaged = try compressed.map { compressed in
            try report.stage("compress") { try PackageStep.run(built, compressed: compressed, flags: flags) }
        }
        if let packaged { report.metrics.record(packaged: packaged) }
        BuildReport.print(built, packaged: packaged, flags: flags)
        report.finish(passed: true)
    }
}

/// Runs the build stage for a command, turning failures into messages and exit statuses.
enum BuildStep {
    /// Unless `--no-compress`, the artifact is compressed while the store is synced to the disk.
    /// - Returns: the build, the output folder's lock (to hold until the job ends), and the artifact
    ///   (or why it failed) for ``PackageStep`` to finish.
    /// - Parameter destination: where the default command publishes; unless `--base` or `--no-base`,
    ///   the channel's current release there is the build's base.
    static func run(_ flags: BuildFlags, publishingTo destination: String? = nil) throws -> (BuiltStore, OutputLock, Packager.Compressed?) {
        let project = try CommandFailure.exitOnError { () throws in
            try ProjectFile.load(inDirectory: FileManager.default.currentDirectoryPath)
        }
        var options = flags.options
        // The signing key's public key is trusted for the base: a signing build follows only a signed one.
        if !flags.noCompress {
            options.signingKey = try CommandFailure.exitOnError { () throws(IngestError) in try SigningKey.load(option: flags.signKey) }
        }
        var (request, warnings) = try CommandFailure.exitOnError { try options.resolve(project: project) }
        // Deltas are listed by the manifest, which --no-compress does not write.
        if flags.noCompress { request.deltas.count = 0 }
        if let destination, flags.base == nil, !flags.noBase {
            let channel = try CommandFailure.exitOnError { try request.channel(under: destination) }
            switch try CommandFailure.exitOnError({ () throws(IngestError) in try BuildRequest.channelState(channel) }) {
            case .released:
                request.base = channel
            case .empty:
                // On stdout with the job's other lines: no warning, the expected first night of a channel.
                if !flags.quiet && !flags.json {
                    print("starting channel \(channel): it holds no release yet, so objects are numbered from 1")
                }
            case .notReadable:
                if !flags.quiet {
                    CommandFailure.printError(
                        "warning: \(channel) is not read as apps read it, so this build follows no base; pass its public URL as --base to keep object IDs across releases"
                    )
                }
            }
        }
        if request.base != nil, request.baseTrust.allowsUnsignedBase, !flags.quiet {
            CommandFailure.printError(
                "warning: --allow-unsigned-base: an unsigned base is followed unverified, and its object numbers are signed with this release"
            )
        }
        if !flags.quiet {
            for warning in warnings { CommandFailure.printError(warning.description) }
        }
        let lock = try CommandFailure.exitOnError { () throws(IngestError) in
            try OutputLock(directory: request.outputDirectory, wait: flags.wait)
        }
        let display = flags.showsProgress ? ProgressDisplay() : nil
        defer { display?.finish() }
        var compressed: Packager.Compressed?
        let compress: ((String) -> Void)? =
            flags.noCompress
            ? nil
            : { working in
                var packager = Packager()
                packager.compressionLevel = flags.effectiveCompressionLevel
                compressed = packager.compress(store: request.storePath, reading: working) { done, total in
                    display?.updateBytes("compressing", done: done, total: total)
                }
            }
        let built = try CommandFailure.exitOnError {
            try SeedBuilder().build(request, progress: { progress in display?.update(progress) }, whileSyncing: compress)
        }
        return (built, lock, compressed)
    }
}

/// Runs the compress stage: the artifact (compressed during the build) and the manifest.
enum PackageStep {
    static func run(_ built: BuiltStore, compressed: Packager.Compressed, flags: BuildFlags) throws -> PackagedArtifact {
        var packager = Packager()
        packager.expiresInDays = flags.effectiveExpiresIn
        packager.signingKey = try CommandFailure.exitOnError { () throws(IngestError) in try SigningKey.load(option: flags.signKey) }
        return try CommandFailure.exitOnError { try packager.package(built, compressed: compressed) }
    }
}
