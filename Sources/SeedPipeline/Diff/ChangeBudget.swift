import Foundation

/// How much of an entity's rows a build that follows a base may remove or change before the
/// release is held (``ChangeBudgetExceeded``): a truncated or emptied export never reaches devices
/// unless someone accepts it.
///
/// `seedbuild.json`: `"changeBudget": {"removed": 0.05, "changed": 0.25, "entities": {"Postcode": {"removed": 0.5}}}`.
/// An entity emptied (rows in the base, none now) is always past the budget.
public struct ChangeBudget: Sendable, Equatable {
    /// One entity's limits, each a share of the base's rows (0 to 1); nil takes the global one.
    public struct Limits: Sendable, Equatable {
        public var removed: Double?
        public var changed: Double?

        public init(removed: Double? = nil, changed: Double? = nil) {
            self.removed = removed
            self.changed = changed
        }
    }

    public static let defaultRemoved = 0.05
    public static let defaultChanged = 0.25

    /// The share of an entity's rows that may be removed (more is held).
    public var removed: Double
    /// The share of an entity's rows that may change.
    public var changed: Double
    /// Entity name → its own limits.
    public var entities: [String: Limits]

    public init(
        removed: Double = ChangeBudget.defaultRemoved, changed: Double = ChangeBudget.defaultChanged, entities: [String: Limits] = [:]
    ) {
        self.removed = removed
        self.changed = changed
        self.entities = entities
    }

    /// An entity past the budget, and why.
    public struct Breach: Sendable, Equatable {
        public var entity: String
        public var reason: String

        public init(entity: String, reason: String) {
            self.entity = entity
            self.reason = reason
        }
    }

    /// The entities of `report` past this budget, by name.
    public func breaches(_ report: ChangeReport) -> [Breach] {
        report.entities.compactMap { entity in
            let limits = entities[entity.entity]
            let (removedLimit, changedLimit) = (limits?.removed ?? removed, limits?.changed ?? changed)
            var reasons: [String] = []
            if entity.isEmptied {
                reasons.append("emptied (\(entity.baseRows) rows in the base, none now)")
            } else {
                if entity.share(.removed) > removedLimit {
                    reasons.append(
                        "\(ChangeReport.percent(entity.share(.removed))) removed, more than the \(ChangeReport.percent(removedLimit)) allowed"
                    )
                }
                if entity.share(.changed) > changedLimit {
                    reasons.append(
                        "\(ChangeReport.percent(entity.share(.changed))) changed, more than the \(ChangeReport.percent(changedLimit)) allowed"
                    )
                }
            }
            return reasons.isEmpty ? nil : Breach(entity: entity.entity, reason: reasons.joined(separator: "; "))
        }
    }

    /// The `changeBudget` object of `seedbuild.json`.
    /// - Throws: a message naming the key that is wrong.
    static func parse(_ value: Any) throws(BudgetParseError) -> ChangeBudget {
        guard let object = value as? [String: Any] else {
            throw BudgetParseError("\"changeBudget\" must be an object such as {\"removed\": 0.05, \"changed\": 0.25}")
        }
        func limits(_ object: [String: Any], at path: String) throws(BudgetParseError) -> Limits {
            var limits = Limits()
            for (key, value) in object {
                guard key == "removed" || key == "changed" else {
                    throw BudgetParseError(
                        "unknown key \"\(path).\(key)\"; a budget has \"removed\" and \"changed\"\(path == "changeBudget" ? " and \"entities\"" : "")"
                    )
                }
                guard let number = value as? NSNumber, String(cString: number.objCType) != "c", number.doubleValue.isFinite,
                    (0...1).contains(number.doubleValue)
                else { throw BudgetParseError("\"\(path).\(key)\" must be a share from 0 to 1, such as 0.05 (5% of the entity's rows)") }
                if key == "removed" { limits.removed = number.doubleValue } else { limits.changed = number.doubleValue }
            }
            return limits
        }
        let global = try limits(object.filter { $0.key != "entities" }, at: "changeBudget")
        var budget = ChangeBudget(removed: global.removed ?? defaultRemoved, changed: global.changed ?? defaultChanged)
        if let value = object["entities"] {
            guard let entities = value as? [String: Any] else {
                throw BudgetParseError(
                    "\"changeBudget.entities\" must map entity names to budgets, such as {\"Postcode\": {\"removed\": 0.5}}")
            }
            for (name, value) in entities {
                guard let entity = value as? [String: Any] else {
                    throw BudgetParseError("\"changeBudget.entities.\(name)\" must be an object such as {\"removed\": 0.5}")
                }
                budget.entities[name] = try limits(entity, at: "changeBudget.entities.\(name)")
            }
        }
        return budget
    }

    struct BudgetParseError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}

/// A release held because its changes against the base exceed the ``ChangeBudget``: nothing was
/// compressed or published, and the output folder keeps its previous release. Accept it with
/// `BuildRequest.acceptChange`, or a larger budget (`BuildRequest.changeBudget`).
public struct ChangeBudgetExceeded: Error, CustomStringConvertible {
    public var report: ChangeReport
    public var breaches: [ChangeBudget.Breach]
    /// The base, as given.
    public var base: String

    public var description: String {
        let version = report.fromDataVersion.map { "data version \($0), " } ?? ""
        var lines = ["the release is held: its changes against the base (\(version)\(base)) exceed the change budget"]
        let breached = Dictionary(breaches.map { ($0.entity, $0.reason) }, uniquingKeysWith: { a, _ in a })
        for entity in report.entities where entity.hasChanges || breached[entity.entity] != nil {
            let single = ChangeReport(from: report.from, to: report.to, entities: [entity])
            var text = single.text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            if let reason = breached[entity.entity] { text[0] += " — \(reason)" }
            lines += text
        }
        lines.append("Nothing was published, and the output folder still holds its previous release.")
        return lines.joined(separator: "\n")
    }
}
