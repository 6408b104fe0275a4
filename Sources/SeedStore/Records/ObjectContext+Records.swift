import Foundation
import SeedModel

extension ObjectContext {
    /// Objects of a record type's entity, decoded as records.
    ///
    /// ```swift
    /// struct Postcode: Decodable {
    ///     var postcode: String
    ///     var latitude: Double?
    ///     var county: ObjectID?        // a to-one relationship: the destination's ID…
    ///     // var county: County?       // …or the destination decoded as a record
    /// }
    /// let kent = try context.fetch(Postcode.self, where: FetchPredicate("county.code == %@", "KEN"), sortedBy: [FetchSortDescriptor("postcode")])
    /// ```
    /// Keys are property names (a record's `CodingKeys` can rename them). Date attributes decode to
    /// `Date`, UUID ones to `UUID`, URI ones to `URL`, Decimal ones to `Decimal`, Binary ones to
    /// `Data`; a to-many relationship decodes to an array of `ObjectID` or of records; the key
    /// `objectID` decodes the object's own ID when the entity has no property of that name.
    ///
    /// An object this context holds is decoded with its unsaved changes (and left out when deleted
    /// here), as ``fetch(_:)`` returns it; other rows are decoded straight from the store, without
    /// registering objects, unless the record reads a relationship.
    /// - Parameters:
    ///   - type: The record type to decode each object or row into.
    ///   - entity: The entity to fetch; by default ``EntityRecord/entityName`` or the type's name.
    ///   - predicate: Which objects to fetch; all when nil.
    ///   - sortDescriptors: Their order.
    ///   - limit: The most records to return.
    ///   - offset: How many of the sorted records to skip first.
    /// - Throws: ``ContextError`` for an unknown entity, or a record key the entity has no property
    ///   for (naming the entity and its properties); `DecodingError` for a value of another type
    ///   or a missing value for a non-optional property; what ``fetch(_:)`` throws.
    public func fetch<Record: Decodable>(
        _ type: Record.Type, entity: String? = nil, where predicate: FetchPredicate? = nil,
        sortedBy sortDescriptors: [FetchSortDescriptor] = [],
        limit: Int? = nil, offset: Int = 0
    ) throws -> [Record] {
        let request = FetchRequest(
            entity: recordEntityName(type, entity), predicate: predicate, sortDescriptors: sortDescriptors, fetchLimit: limit,
            fetchOffset: offset)
        if parent != nil { return try fetch(request).map { try $0.decode(type) } }
        let rows = try fetchRows(request)
        var origin: RowOrigin?
        var record: RowRecord?
        // Written in place: appending to an array of a generic element type looks the array's type up each time.
        return try [Record](unsafeUninitializedCapacity: rows.count) { records, count in
            try rows.forEach { row, store, identifier in
                let decoded: Record
                // A registered object wins, with its unsaved changes (and is left out when deleted here),
                // as fetch(_:) gives it; other rows are decoded as they are, without making an object.
                if !registered.isEmpty, let object = registered[ObjectID(entity: row.entity, storeIdentifier: identifier, key: row.key)] {
                    guard !object.isDeleted else { return }
                    decoded = try object.decode(type)
                } else {
                    if origin?.holds(row, of: store) != true {
                        origin = RowOrigin(
                            entity: sharedEntity(of: row, known: rows.entity), layout: row.layout, store: store,
                            storeIdentifier: identifier, context: self)
                    }
                    let source = RecordSource.row(RowRecord.next(&record, row: row, origin: origin!))
                    decoded = try Record(from: RecordDecoder(source: source, codingPath: []))
                }
                (records.baseAddress! + count).initialize(to: decoded)
                count += 1
            }
        }
    }

    /// A new object of a record type's entity with the record's values; stored by the next save.
    ///
    /// ```swift
    /// struct Note: Encodable { var productSKU: String; var text: String; var added: Date }
    /// try context.insert(Note(productSKU: "A-1", text: "crisp", added: Date()))
    /// try context.save()
    /// ```
    /// Properties the record leaves out (or encodes nothing for, as a nil optional) keep the model's
    /// defaults. A to-one relationship takes the destination's `ObjectID`, a to-many one an array of them.
    /// - Throws: ``ContextError`` for an unknown entity or a record key the entity has no property
    ///   for; `EncodingError` for a value that is not one attribute value. Values are checked against
    ///   the model when the context saves.
    @discardableResult
    public func insert<Record: Encodable>(_ record: Record, entity: String? = nil) throws -> ManagedObject {
        let object = try insert(entity: recordEntityName(Record.self, entity))
        do {
            try record.encode(to: RecordEncoder(object: object, context: self, codingPath: []))
        } catch {
            delete(object)
            throw error
        }
        return object
    }
}

extension ManagedObject {
    /// The object decoded as a record (see ``ObjectContext/fetch(_:entity:where:sortedBy:limit:offset:)``).
    /// - Throws: ``ContextError`` for a record key the entity has no property for; `DecodingError`.
    public func decode<Record: Decodable>(_ type: Record.Type) throws -> Record {
        try Record(from: RecordDecoder(object: self, codingPath: []))
    }

    /// Sets the object's properties from a record, as ``ObjectContext/insert(_:entity:)`` does for a new one;
    /// properties the record leaves out keep their values.
    /// - Throws: as ``ObjectContext/insert(_:entity:)`` does. Values already set before an error stay set.
    public func update<Record: Encodable>(from record: Record) throws {
        guard let context else { throw ContextError(.objectNotFound, "\(objectID) is no longer in a context") }
        try record.encode(to: RecordEncoder(object: self, context: context, codingPath: []))
    }
}
