import SeedStore

/// What `seedbuild verify` found: each check with its numbers, and the verdict per model version.
public struct VerificationReport: Sendable {
    public struct Check: Sendable, Equatable {
        public var name: String
        public var passed: Bool
        /// The numbers: what was found and what was expected.
        public var detail: String
    }

    public enum Verdict: String, Sendable {
        /// The store's hashes equal the configuration's: it opens as it is.
        case compatible
        /// Only entities outside the seed's configuration differ: ``SeedInstaller`` stamps the seed for
        /// this model on the device (done to a scratch copy and checked), and it then opens as it is.
        case restamped
        /// It opens through an inferred lightweight migration, which was applied to a scratch copy and checked.
        case lightweight
        /// It cannot be opened under this model.
        case refused

        /// What the verdict means for a Core Data app's coordinator on this model version.
        public var meaning: String {
            switch self {
            case .compatible: "Core Data opens the seed directly, read-only"
            case .restamped: "opens directly, read-only, once the installer stamps it for this model on the device (no migration)"
            case .lightweight: "opens only after a lightweight migration, which needs a writable copy"
            case .refused: "does not open at all"
            }
        }
    }

    public struct ModelResult: Sendable {
        /// The model version's name (`PostCodesModel 2`) or identifiers.
        public var version: String
        public var verdict: Verdict
        /// The plan (lightweight) or the reasons (refused).
        public var details: [String]
    }

    public var file: String
    public var checks: [Check] = []
    public var models: [ModelResult] = []

    /// Every check passed and no model version refused the store.
    public var passed: Bool {
        checks.allSatisfy(\.passed) && !models.isEmpty && models.allSatisfy { $0.verdict != .refused }
    }

    /// The verdict for the current model (the first one checked).
    public var result: Verdict? { models.first?.verdict }

    mutating func check(_ name: String, _ passed: Bool, _ detail: String) {
        checks.append(Check(name: name, passed: passed, detail: detail))
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "file": .string(file),
            "passed": .bool(passed),
            "checks": .array(checks.map { .object(["name": .string($0.name), "passed": .bool($0.passed), "detail": .string($0.detail)]) }),
            "models": .array(
                models.map {
                    .object([
                        "version": .string($0.version), "result": .string($0.verdict.rawValue),
                        "details": .array($0.details.map(JSONValue.string)),
                    ])
                }),
        ]
        if let result { object["result"] = .string(result.rawValue) }
        return .object(object)
    }

    public var text: String {
        var lines = ["verify \(file)"]
        for check in checks { lines.append("  \(check.passed ? "ok  " : "FAIL") \(check.name): \(check.detail)") }
        if !models.isEmpty {
            lines.append("model versions:")
            for model in models {
                lines.append("  \(model.version): \(model.verdict.rawValue) — \(model.verdict.meaning)")
                for detail in model.details { lines.append("    - \(detail)") }
            }
        }
        lines.append(passed ? "passed" : "FAILED")
        return lines.joined(separator: "\n")
    }
}
