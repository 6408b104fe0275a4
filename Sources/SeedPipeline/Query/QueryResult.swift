import Foundation
import SeedModel
import SeedStore

/// The objects a ``StoreQuery`` found, printable as JSON Lines or as a table.
public struct QueryResult: Sendable {
    public struct Row: Sendable {
        public var entity: String
        /// Attribute values as JSON (dates as ISO 8601 text, binary as base64).
        public var values: [String: JSONValue]
        public var fetched: [String: [Row]]

        init(object: ManagedObject, fetched: [String: [Row]]) {
            entity = object.entity.name
            var values: [String: JSONValue] = [:]
            for attribute in object.entity.attributes where !attribute.isTransient {
                let value = object[attribute.name]
                if attribute.type == .date, let seconds = value.doubleValue {
                    values[attribute.name] = .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds)))
                } else if attribute.type == .boolean, let number = value.integerValue {
                    values[attribute.name] = .bool(number != 0)
                } else {
                    values[attribute.name] = value.jsonValue
                }
            }
            self.values = values
            self.fetched = fetched
        }

        var json: JSONValue {
            var object = values
            for (name, rows) in fetched { object[name] = .array(rows.map(\.json)) }
            return .object(object)
        }
    }

    public let entity: Entity
    public let fetchedProperties: [String]
    public let rows: [Row]

    /// One JSON object per line, each fetched property an array of objects.
    public var jsonLines: String {
        rows.map { $0.json.jsonText + "\n" }.joined()
    }

    /// A table: one column per attribute, then one per fetched property (its objects' count).
    public var table: String {
        let attributes = entity.attributes.filter { !$0.isTransient }.map(\.name)
        let header = attributes + fetchedProperties
        var lines: [[String]] = [header]
        for row in rows {
            var cells = attributes.map { name -> String in
                guard let value = row.values[name], value != .null else { return "" }
                let text = value.stringValue ?? value.jsonText
                return text.count > 40 ? String(text.prefix(39)) + "…" : text
            }
            cells += fetchedProperties.map { String(row.fetched[$0]?.count ?? 0) }
            lines.append(cells)
        }
        let widths = header.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        var text = lines.map { cells in
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        text.insert(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "), at: 1)
        text.append("\(rows.count) \(entity.name) object\(rows.count == 1 ? "" : "s")")
        return text.joined(separator: "\n")
    }
}
