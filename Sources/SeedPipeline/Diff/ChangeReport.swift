import Foundation
import SeedInstall

/// How one entity's rows moved between two releases: added, removed and changed rows, by the
/// stable key (`Z_PK`) a diff matches them on, with a few of each named by the entity's unique key.
public struct EntityChanges: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case added, removed, changed
    }

    public var entity: String
    /// The entity's rows in the earlier release and in the later one.
    public var baseRows: Int
    public var rows: Int
    public var added = 0
    public var removed = 0
    public var changed = 0
    /// Up to ``ChangeReport/sampleCount`` keys of each kind: the entity's unique key values, else `Z_PK`.
    public var samples: [Kind: [String]] = [:]
    /// Up to the `rows` asked for, the changed rows with the old and new values of their changed columns.
    public var changedRows: [ChangedRow] = []

    public init(entity: String, baseRows: Int, rows: Int) {
        self.entity = entity
        self.baseRows = baseRows
        self.rows = rows
    }

    public func count(_ kind: Kind) -> Int {
        switch kind {
        case .added: added
        case .removed: removed
        case .changed: changed
        }
    }

    /// `count(kind)` as a share of the earlier release's rows (0 when it had none).
    public func share(_ kind: Kind) -> Double {
        baseRows > 0 ? Double(count(kind)) / Double(baseRows) : 0
    }

    /// Whether the later release has none of the rows the earlier one had.
    public var isEmptied: Bool { baseRows > 0 && rows == 0 }

    public var hasChanges: Bool { added + removed + changed > 0 }
}

/// A changed row: its key and, for each changed column, the old and the new value as stored.
public struct ChangedRow: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        public var name: String
        public var old: String
        public var new: String
    }

    public var key: String
    public var columns: [Column]
}

/// The per-entity changes between two releases (a build and its base, or `seedbuild diff A B`).
public struct ChangeReport: Sendable, Equatable {
    /// Sample keys kept per entity and kind.
    public static let sampleCount = 5

    /// Where the earlier and the later release were read, and their data versions when stamped.
    public var from: String
    public var to: String
    public var fromDataVersion: Int64?
    public var toDataVersion: Int64?
    /// Every entity of the later release's configuration, by name.
    public var entities: [EntityChanges]

    public init(from: String, to: String, fromDataVersion: Int64? = nil, toDataVersion: Int64? = nil, entities: [EntityChanges]) {
        self.from = from
        self.to = to
        self.fromDataVersion = fromDataVersion
        self.toDataVersion = toDataVersion
        self.entities = entities.sorted { $0.entity < $1.entity }
    }

    public subscript(entity: String) -> EntityChanges? {
        entities.first { $0.entity == entity }
    }

    /// One line per entity: `Postcode: 1000 → 500 rows; 0 added, 500 removed (50.0%), 0 changed (0.0%)`,
    /// then the sample keys of each kind, and with `rows`, the changed rows side by side.
    public var text: String {
        var lines: [String] = []
        for entity in entities {
            lines.append(
                "\(entity.entity): \(entity.baseRows) → \(entity.rows) rows; \(entity.added) added, \(entity.removed) removed (\(Self.percent(entity.share(.removed)))), \(entity.changed) changed (\(Self.percent(entity.share(.changed))))"
            )
            for kind in EntityChanges.Kind.allCases {
                guard let keys = entity.samples[kind], !keys.isEmpty else { continue }
                let more = entity.count(kind) > keys.count ? ", …" : ""
                lines.append("  \(kind.rawValue): \(keys.joined(separator: ", "))\(more)")
            }
            for row in entity.changedRows {
                lines.append("  \(row.key):")
                let width = row.columns.map(\.name.count).max() ?? 0
                for column in row.columns {
                    lines.append(
                        "    \(column.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(column.old)  →  \(column.new)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `50.0%`, or `0.01%` style for shares under a tenth of a percent.
    static func percent(_ share: Double) -> String {
        String(format: share > 0 && share < 0.001 ? "%.2f%%" : "%.1f%%", share * 100)
    }

    /// The report as JSON: `{"from", "to", "fromDataVersion", "toDataVersion", "entities": [{"entity",
    /// "baseRows", "rows", "added", "removed", "changed", "removedShare", "changedShare", "emptied",
    /// "samples": {"added": […], …}, "changedRows": [{"key", "columns": [{"name", "old", "new"}]}]}]}`.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "from": .string(from), "to": .string(to),
            "entities": .array(
                entities.map { entity in
                    var fields: [String: JSONValue] = [
                        "entity": .string(entity.entity), "baseRows": .integer(Int64(entity.baseRows)),
                        "rows": .integer(Int64(entity.rows)),
                        "added": .integer(Int64(entity.added)), "removed": .integer(Int64(entity.removed)),
                        "changed": .integer(Int64(entity.changed)),
                        "removedShare": .double(entity.share(.removed)), "changedShare": .double(entity.share(.changed)),
                        "emptied": .bool(entity.isEmptied),
                        "samples": .object(
                            Dictionary(
                                uniqueKeysWithValues: EntityChanges.Kind.allCases.map { kind in
                                    (kind.rawValue, JSONValue.array((entity.samples[kind] ?? []).map(JSONValue.string)))
                                })),
                    ]
                    if !entity.changedRows.isEmpty {
                        fields["changedRows"] = .array(
                            entity.changedRows.map { row in
                                .object([
                                    "key": .string(row.key),
                                    "columns": .array(
                                        row.columns.map {
                                            .object(["name": .string($0.name), "old": .string($0.old), "new": .string($0.new)])
                                        }),
                                ])
                            })
                    }
                    return .object(fields)
                }),
        ]
        if let fromDataVersion { object["fromDataVersion"] = .integer(fromDataVersion) }
        if let toDataVersion { object["toDataVersion"] = .integer(toDataVersion) }
        return .object(object)
    }
}
