import Foundation
import GRDB
import SeedModel
import SeedStore

/// Loads a link file into the links of a many-to-many (or inverse-less to-many) relationship, once
/// every entity's file is in: each row names the owner by its key (`book_uuid`) and the
/// destination by its key (`genres_name`), as `docs/ingest.md` states.
///
/// A key that matches no object, a pair given twice, an empty key and a bad order value are
/// rejected rows naming the line and field. An ordered relationship keeps the file's order within
/// each owner (or the `<relationship>_order` column's), and its ordered inverse the order in which
/// each destination's owners first appear.
struct LinkLoader {
    let target: LinkTarget
    let file: String
    let schema: StoreSchema
    let request: BuildRequest
    let rejects: RejectCollector

    /// One side's key: the columns holding its parts and the lookup of its objects.
    private struct Side {
        var entity: String
        var key: [Attribute]
        var fields: [Int]
        var lookup: ReferenceKeys
        /// The column name prefix given in messages: `book` or `genres`.
        var prefix: String
    }

    struct Link {
        var owner: Int64
        var destination: Int64
        var order: Int64?
    }

    /// Reads the file and writes its links.
    /// - Parameter lookups: key tables already made, by ``SeedBuilder/lookupName(_:key:)``; the ones
    ///   made here are added.
    func load(into db: Database, lookups: inout [String: ReferenceKeys]) throws -> BuiltStore.Source {
        let reader: CSVReader
        do {
            reader = try CSVReader(path: file, maxRecordBytes: request.maxRecordBytes)
        } catch {
            throw IngestError(error)
        }
        let header = reader.header.map(ColumnMapping.normalize)
        var claimed = Set<Int>()
        let owner = try side(
            target.entity, prefixes: SourceResolver.names(for: target.entity), header: header, claimed: &claimed, db: db, lookups: &lookups)
        let destination = try side(
            target.destination, prefixes: ColumnMapping.relationshipPrefixes(target.relationship), header: header, claimed: &claimed,
            db: db, lookups: &lookups)
        let orderField = ColumnMapping.relationshipPrefixes(target.relationship).lazy.compactMap { prefix in
            header.indices.first { !claimed.contains($0) && header[$0] == prefix + "order" }
        }.first
        if let orderField { claimed.insert(orderField) }
        let ignored = Set(request.mapping.ignoredColumns(of: target.name).map(ColumnMapping.normalize))
        let extra = header.indices.filter { !claimed.contains($0) && !ignored.contains(header[$0]) }
        if let first = extra.first {
            let names = extra.map { reader.header[$0] }.joined(separator: ", ")
            throw IngestError(
                .badData, file: file, line: 1, column: first + 1, field: reader.header[first],
                "\(names) feed\(extra.count == 1 ? "s" : "") nothing in the links of \(target.name): a link file holds \(describe(owner)), \(describe(destination)) and, for an ordered relationship, \(destination.prefix)_order. Remove the column or skip it with --ignore-column \(reader.header[first])"
            )
        }

        var links: [Link] = []
        var seen: [PairKey: Int] = [:]
        // An ordered one-to-many fed by a link file: each destination has one owner, by the line that gave it.
        var owners: [Int64: Int] = [:]
        let inverseIsToOne =
            target.inverse.flatMap { name in
                request.model.entity(named: target.destination).flatMap { request.model.allRelationships(of: $0).first { $0.name == name } }
            }.map { !$0.isToMany } ?? false
        var rowsRead = 0
        while let record = try nextRecord(reader, rowsRead: &rowsRead) {
            guard let ownerKey = try resolve(owner, record: record, header: reader.header),
                let destinationKey = try resolve(destination, record: record, header: reader.header)
            else { continue }
            var order: Int64?
            if let orderField, !record.isEmpty(orderField) {
                guard let value = Int64(record.string(orderField).trimmingCharacters(in: .whitespaces)) else {
                    reject(
                        record, field: orderField, header: reader.header,
                        "\(reader.header[orderField]) must be a whole number (the link's place in \(target.name)), not \"\(record.string(orderField))\""
                    )
                    continue
                }
                order = value
            }
            let pair = PairKey(owner: ownerKey, destination: destinationKey)
            if let line = seen[pair] {
                reject(
                    record, field: destination.fields[0], header: reader.header,
                    "this link of \(target.name) is given twice: line \(line) has it already; remove one")
                continue
            }
            if inverseIsToOne {
                if let line = owners[destinationKey] {
                    reject(
                        record, field: destination.fields[0], header: reader.header,
                        "\(target.destination).\(target.inverse ?? "") is to-one, and line \(line) links this \(target.destination) already; give each one owner"
                    )
                    continue
                }
                owners[destinationKey] = record.line
            }
            seen[pair] = record.line
            links.append(Link(owner: ownerKey, destination: destinationKey, order: order))
        }
        try write(links, into: db)
        return BuiltStore.Source(
            entity: target.name, file: file, bytes: reader.bytesRead, sha256: reader.sha256 ?? "", rowsRead: rowsRead,
            rowsLoaded: links.count, rowsRejected: rowsRead - links.count)
    }

    private struct PairKey: Hashable {
        var owner: Int64
        var destination: Int64
    }

    /// The first of the entity's keys (single ones first) whose `<prefix>_<attribute>` columns the header has.
    private func side(
        _ entity: String, prefixes: [String], header: [String], claimed: inout Set<Int>, db: Database,
        lookups: inout [String: ReferenceKeys]
    ) throws -> Side {
        let prefixes = prefixes.map(ColumnMapping.normalize)
        guard let model = request.model.entity(named: entity) else {
            throw IngestError(.badData, file: file, "the model has no entity \(entity) for the links of \(target.name)")
        }
        let keys = SeedBuilder.lookupKeys(of: model)
        guard !keys.isEmpty else {
            throw IngestError(
                .badData, file: file,
                "\(entity) has no uniqueness constraint, so a link file cannot name its objects; give \(entity) one in the model (its key) to feed \(target.name) from \(file)"
            )
        }
        for key in keys {
            for prefix in prefixes {
                let fields = key.map { attribute in
                    header.indices.first { !claimed.contains($0) && header[$0] == prefix + ColumnMapping.normalize(attribute.name) }
                }
                guard fields.allSatisfy({ $0 != nil }) else { continue }
                let name = SeedBuilder.lookupName(entity, key: key)
                if lookups[name] == nil {
                    guard let table = schema.table(for: entity) else {
                        throw IngestError(
                            .badData, file: file,
                            "\(entity) is not in configuration \(schema.configuration), so \(target.name) cannot be fed here")
                    }
                    lookups[name] = try SeedBuilder.primaryKeys(of: table, key: key, db: db)
                }
                claimed.formUnion(fields.compactMap { $0 })
                return Side(entity: entity, key: key, fields: fields.compactMap { $0 }, lookup: lookups[name]!, prefix: prefixes[0])
            }
        }
        let options = keys.map { key in key.map { "\(prefixes[0])_\($0.name)" }.joined(separator: " and ") }.joined(separator: ", or ")
        throw IngestError(
            .badData, file: file, line: 1,
            "the links of \(target.name) need \(entity)'s key: a column \(options) (\(entity) is found by its uniqueness constraint); the header has \(header.isEmpty ? "nothing" : "only other columns")"
        )
    }

    private func describe(_ side: Side) -> String {
        side.key.map { "\(side.prefix)_\($0.name)" }.joined(separator: " and ")
    }

    /// The primary key a record's key fields name, or nil after rejecting the record.
    private func resolve(_ side: Side, record: CSVRecord, header: [String]) throws -> Int64? {
        if let empty = side.fields.first(where: { record.isEmpty($0) }) {
            reject(
                record, field: empty, header: header, "\(header[empty]) is empty: each link names a \(side.entity) by its key; fill it in")
            return nil
        }
        switch side.lookup.match(record, fields: side.fields) {
        case .found(let primaryKey):
            return primaryKey
        case .invalid(let part, let failure):
            let field = side.fields[part]
            reject(
                record, field: field, header: header,
                "\(header[field]) gives \(side.entity).\(side.key[part].name) (\(side.key[part].type.rawValue)): \(failure.reason)")
            return nil
        case .missing:
            let names = side.key.count == 1 ? side.key[0].name : "(" + side.key.map(\.name).joined(separator: ", ") + ")"
            let given = side.fields.map { record.string($0) }.joined(separator: ", ")
            reject(
                record, field: side.fields[0], header: header,
                "\(target.name): no \(side.entity) with \(names) \"\(given)\" in \(request.sources[side.entity] ?? side.entity); add it there or fix this link"
            )
            return nil
        }
    }

    private func reject(_ record: CSVRecord, field: Int, header: [String], _ reason: String) {
        rejects.add(
            RowError(
                file: file, line: record.line, column: field + 1, field: header[field], reason: reason,
                record: String(decoding: record.rawBytes, as: UTF8.self)))
    }

    /// The next record, with structural problems of single records (ragged, bad bytes, too long) rejected.
    private func nextRecord(_ reader: CSVReader, rowsRead: inout Int) throws -> CSVRecord? {
        while true {
            do {
                let record = try reader.next()
                if record != nil { rowsRead += 1 }
                return record
            } catch  where error.isRecoverable {
                rowsRead += 1
                rejects.add(
                    RowError(
                        file: file, line: error.line, column: error.column, field: error.field, reason: error.reason,
                        record: String(decoding: reader.lastRecordBytes, as: UTF8.self)))
            } catch {
                throw IngestError(error)
            }
        }
    }

    /// Writes the links where the layout keeps them, with their places in ordered lists.
    private func write(_ links: [Link], into db: Database) throws {
        guard let storage = schema.linkStorage(of: target.relationship, in: target.entity) else {
            throw IngestError(
                .badData, file: file,
                "\(target.name) is not kept in a join table in the \(schema.layout.name) layout, so no link file feeds it")
        }
        switch storage {
        case .destinationColumn(let table, let column):
            // Core Data keeps a to-many without inverse in one column of the destination: one owner each.
            var owners: [Int64: Int64] = [:]
            for link in links {
                if let other = owners[link.destination], other != link.owner {
                    throw IngestError(
                        .badData, file: file,
                        "\(target.name) has no inverse, and Core Data's layout keeps one owner per \(target.destination) for it: \(target.destination) \(link.destination) is linked from two; give \(target.name) an inverse or build --format plain"
                    )
                }
                owners[link.destination] = link.owner
            }
            let statement = try db.makeStatement(
                sql:
                    "UPDATE \(quoteIdentifier(table.name)) SET \(quoteIdentifier(column)) = ? WHERE \(quoteIdentifier(table.keyColumn)) = ?"
            )
            for link in links { try statement.execute(arguments: [link.owner, link.destination]) }
        case .joinTable(let join, let ownerIsSource, let orderColumns):
            let positions = Self.positions(of: links)
            var columns = ownerIsSource ? [join.sourceColumn, join.destinationColumn] : [join.destinationColumn, join.sourceColumn]
            // Each order column orders the list of the relationship fed, or of its inverse.
            let orders: [Bool] = orderColumns.map { order in
                order.relationship == target.relationship && request.model.isKind(target.entity, of: order.entity)
            }
            columns += orderColumns.map(\.column)
            let sql =
                "INSERT INTO \(quoteIdentifier(join.name)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
            let statement = try db.makeStatement(sql: sql)
            for (index, link) in links.enumerated() {
                var values: [DatabaseValueConvertible] = [link.owner, link.destination]
                for ownersList in orders {
                    values.append(Int64(join.firstPosition) + (ownersList ? positions.inOwner[index] : positions.inDestination[index]))
                }
                try statement.execute(arguments: StatementArguments(values))
            }
        }
    }

    /// Each link's place (from 0) in its owner's list — by the order column where given, else the
    /// file's order — and in its destination's list of owners, in the file's order.
    static func positions(of links: [Link]) -> (inOwner: [Int64], inDestination: [Int64]) {
        var inOwner = [Int64](repeating: 0, count: links.count)
        var byOwner: [Int64: [Int]] = [:]
        for (index, link) in links.enumerated() { byOwner[link.owner, default: []].append(index) }
        for indices in byOwner.values {
            // A stable sort: links without an order value keep the file's order after those with one.
            let sorted = indices.enumerated().sorted { a, b in
                let (x, y) = (links[a.element].order ?? Int64.max, links[b.element].order ?? Int64.max)
                return x != y ? x < y : a.offset < b.offset
            }
            for (place, entry) in sorted.enumerated() { inOwner[entry.element] = Int64(place) }
        }
        var inDestination = [Int64](repeating: 0, count: links.count)
        var counts: [Int64: Int64] = [:]
        for (index, link) in links.enumerated() {
            inDestination[index] = counts[link.destination, default: 0]
            counts[link.destination, default: 0] += 1
        }
        return (inOwner, inDestination)
    }
}

extension Model {
    /// Whether `entity` is `ancestor` or one of its sub-entities.
    func isKind(_ entity: String, of ancestor: String) -> Bool {
        guard let start = self.entity(named: entity) else { return entity == ancestor }
        return inheritanceChain(of: start).contains { $0.name == ancestor }
    }
}
