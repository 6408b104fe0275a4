import Foundation
import SeedInstall

extension ChangeReport {
    /// The manifest member holding a release's changes against the release it followed.
    public static let manifestKey = "changes"

    /// The form signed in the manifest: the data version it is against and each entity's counts and
    /// sample keys — not where the stores lay on the build machine, nor changed rows' values.
    /// `{"fromDataVersion": 7, "entities": [{"entity", "baseRows", "rows", "added", "removed", "changed", "samples"}]}`
    public var manifestValue: JSONValue {
        var object: [String: JSONValue] = [
            "entities": .array(
                entities.map { entity in
                    .object([
                        "entity": .string(entity.entity), "baseRows": .integer(Int64(entity.baseRows)),
                        "rows": .integer(Int64(entity.rows)),
                        "added": .integer(Int64(entity.added)), "removed": .integer(Int64(entity.removed)),
                        "changed": .integer(Int64(entity.changed)),
                        "samples": .object(
                            Dictionary(
                                uniqueKeysWithValues: EntityChanges.Kind.allCases.map { kind in
                                    (kind.rawValue, JSONValue.array((entity.samples[kind] ?? []).map(JSONValue.string)))
                                })),
                    ])
                })
        ]
        if let fromDataVersion { object["fromDataVersion"] = .integer(fromDataVersion) }
        return .object(object)
    }

    /// Reads the manifest form back (``manifestValue``); nil when it is not that form.
    public init?(manifestValue value: JSONValue, dataVersion: Int64?) {
        guard let object = value.objectValue, let entities = object["entities"]?.arrayValue else { return nil }
        var parsed: [EntityChanges] = []
        for item in entities {
            guard let fields = item.objectValue, let name = fields["entity"]?.stringValue else { return nil }
            let count = { (key: String) in Int(fields[key]?.integerValue ?? 0) }
            var entity = EntityChanges(entity: name, baseRows: count("baseRows"), rows: count("rows"))
            (entity.added, entity.removed, entity.changed) = (count("added"), count("removed"), count("changed"))
            for kind in EntityChanges.Kind.allCases {
                entity.samples[kind] = fields["samples"]?.objectValue?[kind.rawValue]?.arrayValue?.compactMap(\.stringValue) ?? []
            }
            parsed.append(entity)
        }
        let from = object["fromDataVersion"]?.integerValue
        self.init(
            from: from.map { "data version \($0)" } ?? "", to: dataVersion.map { "data version \($0)" } ?? "",
            fromDataVersion: from, toDataVersion: dataVersion, entities: parsed)
    }

    /// Rows added, removed or changed over every entity.
    public var touched: Int { entities.reduce(0) { $0 + $1.added + $1.removed + $1.changed } }
}
