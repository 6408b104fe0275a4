import ArgumentParser
import Foundation
import SeedPipeline
import SeedStore

/// `seedbuild run --json`: one object on stdout saying what every stage did, printed also when a
/// stage fails (then with its exit status), so CI can see how far the job got.
///
/// ```json
/// {"passed": true,
///  "stages": [{"stage": "build", "status": "ok"}, {"stage": "compress", "status": "ok"},
///             {"stage": "verify", "status": "passed"}, {"stage": "publish", "status": "refreshed"}],
///  "build": {…}, "verify": {"result": "compatible", "models": [{"version": …, "result": …}], …},
///  "publish": {"outcome": "refreshed", "channel": …, "pointerURL": …, "manifestURL": …, "artifactURL": …}}
/// ```
final class RunReport {
    private var stages: [[String: Any]] = []
    private var object: [String: Any] = [:]
    private let enabled: Bool
    /// The run's figures, written to `metricsPath` when the run ends (``JobMetrics``).
    var metrics = JobMetrics()
    private let metricsPath: String?

    /// Whether a held release is thrown on as it is, for a command whose ``CommandFailure/reportingFailure(asJSON:_:)``
    /// prints it (`build`), rather than as the exit status this report prints (the default command).
    private let passesHeldOn: Bool

    init(enabled: Bool, metricsPath: String? = nil, passesHeldOn: Bool = false) {
        self.enabled = enabled
        self.metricsPath = metricsPath
        self.passesHeldOn = passesHeldOn
    }

    /// Runs one stage, timing it; on failure records its exit status, prints the report and rethrows.
    func stage<T>(_ name: String, _ body: () throws -> T) throws -> T {
        let started = Date()
        do {
            let value = try body()
            metrics.record(stage: name, seconds: Date().timeIntervalSince(started))
            return value
        } catch let exit as ExitCode {
            metrics.record(stage: name, seconds: Date().timeIntervalSince(started))
            stages.append(["stage": name, "status": "failed", "exitCode": Int(exit.rawValue)])
            finish(passed: false)
            throw exit
        } catch let held as ChangeBudgetExceeded {
            metrics.record(stage: name, seconds: Date().timeIntervalSince(started))
            metrics.record(changes: held.report)
            let exit = ExitCode(CommandFailure.status(for: held))
            stages.append(["stage": name, "status": "held", "exitCode": Int(exit.rawValue)])
            object["changes"] = BuildReport.changes(held.report)
            finish(passed: false)
            if passesHeldOn { throw held }
            throw exit
        }
    }

    /// Records a stage's status, and its details under `key` (default: the stage's name).
    func record(_ name: String, status: String, details: [String: Any]? = nil, key: String? = nil) {
        stages.append(["stage": name, "status": status])
        if let details { object[key ?? name] = details }
    }

    func finish(passed: Bool) {
        if let metricsPath {
            do {
                try metrics.write(to: metricsPath, succeeded: passed)
            } catch {
                CommandFailure.printError("warning: \(error)")
            }
        }
        guard enabled else { return }
        object["stages"] = stages
        object["passed"] = passed
        print(Self.text(object))
    }

    static func text(_ object: [String: Any]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func verify(_ report: VerificationReport) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(report.json.jsonText.utf8)) as? [String: Any]) ?? [:]
    }

    static func publish(_ result: Publisher.Result) -> [String: Any] {
        var object: [String: Any] = [
            "outcome": result.outcome.rawValue, "channel": result.channel, "dataVersion": result.dataVersion,
            "pointerURL": result.pointerURL, "manifestURL": result.manifestURL, "artifactURL": result.artifactURL,
            "pruned": result.pruned,
            "deltas": result.deltas.map { ["fromDataVersion": $0.fromDataVersion, "url": $0.url, "bytes": $0.bytes] as [String: Any] },
        ]
        if let expires = result.expires { object["expires"] = ISO8601DateFormatter().string(from: expires) }
        if let reason = result.reason { object["reason"] = reason }
        if let page = result.pageURL { object["page"] = page }
        if let problem = result.pageProblem { object["pageProblem"] = problem }
        return object
    }
}
