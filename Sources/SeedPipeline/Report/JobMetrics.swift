import Foundation
import SeedStore

/// The nightly job's figures in Prometheus's text exposition format, for node-exporter's textfile
/// collector (`--metrics FILE`): written whole under a temporary name and renamed, so the collector
/// never reads half a file.
///
/// Names follow Prometheus's conventions: `seedbuild_` first, the unit last (`_seconds`, `_bytes`),
/// every family with `# HELP` and `# TYPE` lines. Every value is a gauge: each run replaces the file.
/// A failed run keeps `seedbuild_last_success_timestamp_seconds` from the file it replaces, so an
/// alert on its age fires however the job fails.
public struct JobMetrics: Sendable {
    private struct Family: Sendable {
        var name: String
        var help: String
        var samples: [(labels: [(String, String)], value: Double)]
    }

    private var families: [Family] = []

    public init() {}

    /// Sets a value; a family is declared by its first sample, with `help` as its HELP text.
    public mutating func set(_ name: String, _ value: Double, help: String, labels: [(String, String)] = []) {
        if let index = families.firstIndex(where: { $0.name == name }) {
            families[index].samples.append((labels, value))
        } else {
            families.append(Family(name: name, help: help, samples: [(labels, value)]))
        }
    }

    /// Adds to a value already set with the same labels (a stage run in two parts), else sets it.
    public mutating func add(_ name: String, _ value: Double, help: String, labels: [(String, String)] = []) {
        if let family = families.firstIndex(where: { $0.name == name }),
            let sample = families[family].samples.firstIndex(where: { $0.labels.elementsEqual(labels, by: ==) })
        {
            families[family].samples[sample].value += value
        } else {
            set(name, value, help: help, labels: labels)
        }
    }

    /// The exposition text.
    public var text: String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n# TYPE \(family.name) gauge\n"
            for sample in family.samples {
                let labels =
                    sample.labels.isEmpty
                    ? "" : "{" + sample.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                out += "\(family.name)\(labels) \(Self.number(sample.value))\n"
            }
        }
        return out
    }

    /// Writes the file atomically; on a failed run, first carries over the last success's time from
    /// the file being replaced.
    /// - Throws: ``IngestError`` (exit 73) naming the file when it cannot be written.
    public func write(to path: String, succeeded: Bool, now: Date = Date()) throws {
        var metrics = self
        let lastSuccess = succeeded ? now.timeIntervalSince1970 : Self.lastSuccess(in: path)
        metrics.set("seedbuild_success", succeeded ? 1 : 0, help: "1 when the last run of the job succeeded, 0 when it failed.")
        metrics.set(
            "seedbuild_last_run_timestamp_seconds", now.timeIntervalSince1970.rounded(),
            help: "When the last run of the job ended, in seconds since 1970.")
        if let lastSuccess {
            metrics.set(
                "seedbuild_last_success_timestamp_seconds", lastSuccess.rounded(),
                help: "When a run of the job last succeeded, in seconds since 1970.")
        }
        do {
            try writeAtomically(metrics.text, to: path, mode: 0o644)
        } catch {
            throw IngestError(
                .cannotCreateOutput, file: path,
                "cannot write the metrics file: \(error); check the folder exists and is writable (node-exporter's textfile directory)")
        }
    }

    /// The success time a previous run recorded in `path`, if any.
    static func lastSuccess(in path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("seedbuild_last_success_timestamp_seconds ") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func escapeLabel(_ text: String) -> String {
        escapeHelp(text).replacingOccurrences(of: "\"", with: "\\\"")
    }
}
