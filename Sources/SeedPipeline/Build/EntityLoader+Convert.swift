import SeedModel
import SeedStore

/// Turning a record's fields into a row's values: the producer's half of the hot loop.
extension EntityLoader {
    /// What the hot loop needs of one feed, without the model values' strings, so iterating costs no
    /// reference counting.
    struct FeedPlan {
        enum Kind { case attribute, reference, absent }
        let kind: Kind
        let field: Int
        let type: AttributeType
        let isOptional: Bool
        /// Index into `lookups` for references.
        let lookup: Int
        /// Index into `compoundKeys` for a reference through a compound key; -1 for one field.
        var compound = -1
        /// The value when the row gives none (an absent feed's, an empty field's default), when it
        /// is NULL or a number: one store per row. Nil when there is none, or it is text or bytes,
        /// kept in ``EntityLoader/feedDefaults()``.
        var constant: RowBatch.Slot?
        /// A date of Core Data's layout, stored as ``EntityLoader/coreDataDate(_:)`` gives it.
        var isCoreDataDate = false
    }

    /// The fields of a compound key's parts, in the constraint's order.
    typealias KeyParts = [Int]

    /// Compiles the mapping's feeds into plans, and each reference's destination key table.
    func makePlans() -> (plans: [FeedPlan], lookups: [ReferenceKeys], compoundKeys: [KeyParts]) {
        var lookups: [ReferenceKeys] = []
        var compoundKeys: [KeyParts] = []
        let plans = mapping.feeds.map { feed -> FeedPlan in
            switch feed {
            case .attribute(let field, let attribute):
                return FeedPlan(kind: .attribute, field: field, type: attribute.type, isOptional: attribute.isOptional, lookup: -1)
            case .reference(let fields, let relationship, let destination, let key):
                lookups.append(references[SeedBuilder.lookupName(destination, key: key)] ?? ReferenceKeys())
                var plan = FeedPlan(
                    kind: .reference, field: fields[0], type: key[0].type, isOptional: relationship.isOptional, lookup: lookups.count - 1)
                if key.count > 1 {
                    compoundKeys.append(fields)
                    plan.compound = compoundKeys.count - 1
                }
                return plan
            case .absent(let attribute):
                return FeedPlan(kind: .absent, field: -1, type: attribute.type, isOptional: true, lookup: -1)
            case .absentReference:
                return FeedPlan(kind: .absent, field: -1, type: .integer64, isOptional: true, lookup: -1)
            }
        }
        let defaults = feedDefaults()
        let dates = storesCoreDataDate
        let withConstants = plans.enumerated().map { index, plan in
            var plan = plan
            plan.isCoreDataDate = dates[index]
            switch defaults[index] {
            case .integer(let number): plan.constant = .integer(number)
            case .real(let number): plan.constant = plan.isCoreDataDate ? Self.coreDataDate(number) : .real(number)
            case nil where plan.kind == .absent: plan.constant = .null
            default: break
            }
            return plan
        }
        return (withConstants, lookups, compoundKeys)
    }

    /// Per feed, the value used when the row gives none: the attribute's default (Xcode's
    /// `defaultValueString`, or Core Data's entity number and row version), or nil.
    func feedDefaults() -> [FieldValue?] {
        mapping.feeds.map { feed in
            switch feed {
            case .attribute(_, let attribute), .absent(let attribute):
                guard let text = attribute.effectiveDefaultValue,
                    case .success(let value) = FieldConverter.convertDefault(text, as: attribute.type)
                else { return nil }
                if case .fieldText = value { return .text(text) }
                return value
            case .reference, .absentReference:
                return nil
            }
        }
    }

    /// Converts every fed field of a record into the row `batch` is writing; the failing feed and
    /// why, if any. Every column is set, so nothing of an earlier row stays in the slots.
    func convert(
        _ record: CSVRecord, plans: UnsafeBufferPointer<FeedPlan>, lookups: UnsafeBufferPointer<ReferenceKeys>,
        compoundKeys: [KeyParts], defaults: [FieldValue?], into batch: RowBatch
    ) -> (feed: Int, failure: ConversionFailure?)? {
        for index in 0..<plans.count {
            let plan = plans[index]
            switch plan.kind {
            case .attribute:
                if record.isEmpty(plan.field) {
                    if plan.isOptional {
                        batch.set(index, .null)
                    } else if let constant = plan.constant {
                        batch.set(index, constant)
                    } else if let value = defaults[index] {
                        batch.set(index, value: value, record: record, field: nil)
                    } else {
                        return (index, nil)
                    }
                    continue
                }
                if plan.type == .string {
                    record.withField(plan.field) { batch.setText(index, $0) }
                    continue
                }
                switch record.withField(plan.field, { FieldConverter.convert($0, as: plan.type) }) {
                case .success(.integer(let number)): batch.set(index, .integer(number))
                case .success(.real(let number)): batch.set(index, plan.isCoreDataDate ? Self.coreDataDate(number) : .real(number))
                case .success(let value): batch.set(index, value: value, record: record, field: plan.field)
                case .failure(let failure): return (index, failure)
                }
            case .reference where plan.compound < 0:
                if record.isEmpty(plan.field) {
                    if plan.isOptional {
                        batch.set(index, .null)
                        continue
                    }
                    return (index, nil)
                }
                guard let primaryKey = Self.lookUp(record, field: plan.field, in: lookups.baseAddress! + plan.lookup) else {
                    return (index, nil)
                }
                batch.set(index, .integer(primaryKey))
            case .reference:
                let parts = compoundKeys[plan.compound]
                let empty = parts.reduce(0) { $0 + (record.isEmpty($1) ? 1 : 0) }
                if empty == parts.count, plan.isOptional {
                    batch.set(index, .null)
                    continue
                }
                guard empty == 0, case .found(let primaryKey) = lookups[plan.lookup].match(record, fields: parts) else {
                    return (index, nil)
                }
                batch.set(index, .integer(primaryKey))
            case .absent:
                if let constant = plan.constant {
                    batch.set(index, constant)
                } else if let value = defaults[index] {
                    batch.set(index, value: value, record: record, field: nil)
                } else {
                    batch.set(index, .null)
                }
            }
        }
        return nil
    }

    /// The primary key a single-field reference points to, the field converted as the destination
    /// keeps its key (``KeyPart``). `keys` is a pointer: passed by value, the table's arrays were
    /// retained and released for every row.
    static func lookUp(_ record: CSVRecord, field: Int, in keys: UnsafePointer<ReferenceKeys>) -> Int64? {
        keys.pointee.primaryKey(record, field: field)
    }

    /// The message for a failed feed, made only when a row fails.
    func describe(_ failure: (feed: Int, failure: ConversionFailure?), record: CSVRecord) -> (field: Int, reason: String) {
        switch mapping.feeds[failure.feed] {
        case .attribute(let field, let attribute):
            if let conversion = failure.failure { return (field, "\(table.entity.name).\(attribute.name): \(conversion.reason)") }
            return (field, "\(table.entity.name).\(attribute.name) is required but the field is empty; fill it in")
        case .reference(let fields, let relationship, let destination, let key):
            let names = key.count == 1 ? key[0].name : "(" + key.map(\.name).joined(separator: ", ") + ")"
            if fields.allSatisfy({ record.isEmpty($0) }) {
                return (
                    fields[0],
                    "\(table.entity.name).\(relationship.name) is required but the field is empty; give a \(destination).\(names) value"
                )
            }
            let given = fields.map { record.string($0) }.joined(separator: ", ")
            let missing = fields.first { record.isEmpty($0) }
            if let missing, key.count > 1 {
                return (
                    missing,
                    "\(table.entity.name).\(relationship.name): \(destination).\(names) needs every part, and \(header[missing]) is empty"
                )
            }
            if case .invalid(let part, let failure) = references[SeedBuilder.lookupName(destination, key: key)]?.match(
                record, fields: fields)
            {
                return (
                    fields[part],
                    "\(table.entity.name).\(relationship.name): \(header[fields[part]]) gives \(destination).\(key[part].name) (\(key[part].type.rawValue)): \(failure.reason)"
                )
            }
            return (
                fields[0],
                "\(table.entity.name).\(relationship.name): no \(destination) with \(names) \"\(given)\" in \(sourceFiles[destination] ?? destination); add it there or fix this value"
            )
        case .absent, .absentReference:
            return (0, "unexpected failure")
        }
    }
}
